// The scheduling pipeline, as its steps: filter clusters (with a per-cluster diagnosis), score the
// nodes of those that remain, place replica after replica by the request's distribution, and
// decide. Plain C++ over const views; the SchedulerActor commits what it returns.
#pragma once

#include <absl/container/flat_hash_set.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "policy/framework.hpp"

namespace unisched::policy {

struct ReplicaPlacement {
  std::string cluster;
  std::string node;
  int64_t cpu_milli = 0;
  int64_t memory_bytes = 0;
  std::vector<int32_t> devices;
  std::vector<int32_t> host_ports;
  std::vector<int32_t> device_milli;  ///< taken of each of `devices` (1000: whole)
  double score = 0;                   ///< the policy's weighted score of the node chosen
};

struct ClusterDiagnosis {
  std::string cluster;
  std::string plugin;  ///< the filter that refused it, or "distribution"
  std::string reason;
};

enum class DecisionStatus {
  Placed,           ///< every replica has a node
  PartiallyPlaced,  ///< some replicas have nodes (never for gang requests)
  Unschedulable,    ///< none could be placed; `diagnoses` say why, per cluster
};

const char* describe(DecisionStatus status);

struct Decision {
  DecisionStatus status = DecisionStatus::Unschedulable;
  std::vector<ReplicaPlacement> placements;
  std::vector<ClusterDiagnosis> diagnoses;
  /// One line per diagnosis: "a100: resource-fit: 0 of 20 nodes fit: ..."
  std::vector<std::string> reasons() const;
  /// "unschedulable: a100: resource-fit: 0 of 20 nodes fit: ...; t4: affinity: ..."
  std::string explain() const;
};

/// A node of a cluster: (cluster id, node name).
using NodeRef = std::pair<std::string, std::string>;
/// Nodes as (cluster id, node name) views of strings that outlive the decision: a decision asks
/// of every node it draws whether to leave it alone, and builds no strings to ask.
using NodeKeys = absl::flat_hash_set<std::pair<std::string_view, std::string_view>>;

/// Decides where the replicas of `request` go among `clusters`. `sample_seed` makes the
/// decision's CycleState, which drives every draw in it (its node sample, random ties, plugins
/// that draw): the same seed, views and request give the same decision. No replica goes to a
/// node in `avoid` (nodes that refused this work although the view said it fits, nodes that
/// commits in flight change).
Decision decide(const model::SchedulingRequestSpec& request,
                const std::vector<ClusterCandidate>& clusters, const Policy& policy,
                uint64_t sample_seed = 0, const NodeKeys& avoid = {});

}  // namespace unisched::policy
