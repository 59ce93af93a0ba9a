// Trace replay: the FGD paper's experiment (METHOD.md beside the trace) run through unisched's
// own pipeline. The trace's nodes become K simulated clusters, each with its metadata agent and
// ClusterActor; one SchedulerActor places the pods one at a time, in the seeded arrival order,
// never releasing any; a pod that fits nowhere is skipped. After every pod the replay notes the
// arrived load, the GPU share allocated and the fragmentation, and reports them per load.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "adapters/gpu_trace.hpp"
#include "policy/framework.hpp"
#include "runtime/local_waits.hpp"

namespace unisched::runtime {

enum class TracePartition {
  Model,       ///< the GPU models are dealt out to the clusters, most GPUs first
  RoundRobin,  ///< node i goes to cluster i mod K
  Random,      ///< each node to a cluster drawn with the seed
};

struct ReplayOptions {
  std::vector<adapters::TraceNode> nodes;
  std::vector<adapters::TracePod> pods;  ///< the trace's list, in file order
  int clusters = 1;
  TracePartition partition = TracePartition::Model;
  /// A policy of the paper's experiment or unisched's improvement (policy/trace_policies.hpp),
  /// or a preset.
  std::string policy = "fgd-packed";
  /// How equal nodes are chosen between, when not the policy's own way (the paper's policies:
  /// the smaller name, as in its simulator; fgd-packed: hashed).
  std::optional<policy::TieBreak> ties;
  uint64_t seed = 42;
  double tune = 1.3;  ///< copies are added until this many times the GPU capacity arrived
  /// Decide straight through the policy on views kept in this thread, not through the actors:
  /// the same decisions (a test holds them equal), for sweeps of many seeds.
  bool direct = false;
  LocalWaits waits;  ///< on the replay's actors, when not direct
};

/// The arrived loads (% of GPU capacity) the report gives figures at.
inline const std::vector<int> kReportedLoads = {50, 80, 90, 100, 110, 120, 130};

struct ReplayReport {
  /// Arrived load % -> mean GPU allocation % (allocated milli-GPU of the capacity) over the pods
  /// whose arrival brought the load to that percentage, rounded.
  std::map<int, double> allocation;
  /// Arrived load % -> mean fragmentation (FGD's measure), % of the GPU capacity.
  std::map<int, double> fragmentation;
  std::map<std::string, uint64_t> failed;  ///< pods that fit nowhere, by kind and reason
  uint64_t pods = 0;                       ///< arrived, copies included
  uint64_t placed = 0;
  int64_t capacity_milli = 0;
  int64_t allocated_milli = 0;                     ///< by the placements, at the end
  int64_t view_allocated_milli = 0;                ///< in the ClusterActors' views, at the end
  std::vector<std::string> problems;               ///< what went wrong (an empty list: a clean run)
  policy::TieBreak ties = policy::TieBreak::Name;  ///< how equal nodes were chosen between
};

/// Runs the replay; `progress` is called every 1,000 pods with (pods done, pods in all).
ReplayReport replay(const ReplayOptions& options,
                    const std::function<void(size_t, size_t)>& progress);

}  // namespace unisched::runtime
