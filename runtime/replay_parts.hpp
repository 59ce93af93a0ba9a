// What both ways of replaying a trace share (runtime/replay.cpp through the actors,
// runtime/replay_direct.cpp straight through the policy): the trace's nodes split into clusters
// with their profiles, the policy, the mirror of the nodes that checks every placement and keeps
// the fragmentation, and the per-pod bookkeeping that makes the report.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "adapters/gpu_trace.hpp"
#include "adapters/simulated_cluster.hpp"
#include "messages/unisched.pb.h"
#include "model/cluster_profile.hpp"
#include "model/node_state.hpp"
#include "policy/fragmentation.hpp"
#include "policy/framework.hpp"
#include "runtime/replay.hpp"

namespace unisched::runtime::replay_parts {

/// The clusters the trace's nodes are split into: a profile and the node names of each.
struct TraceClusters {
  std::vector<model::ClusterResourceProfile> profiles;
  std::vector<std::vector<std::string>> node_names;  // per profile
};

TraceClusters trace_clusters(const ReplayOptions& options, ReplayReport& report);

/// What both ways of replaying start from.
struct ReplaySetup {
  std::vector<adapters::TracePod> arrivals;  ///< in the seeded order, copies added
  std::vector<policy::PodShape> typical;     ///< the trace's typical pods, for fragmentation
  TraceClusters clusters;
};

/// nullopt with the problem in `report` when the trace or the split cannot be replayed.
std::optional<ReplaySetup> replay_setup(const ReplayOptions& options, ReplayReport& report);

/// How cluster `index` is simulated: the trace's node names, and quiet (no churn, no pods but
/// the replay's).
adapters::SimulationOptions quiet_simulation(const ReplayOptions& options,
                                             const TraceClusters& clusters, size_t index);

/// The replay's policy (FGD measures against the trace's typical pods), with its ties; nullopt
/// with a problem in `report` when the name is neither a trace policy nor a preset.
std::optional<policy::Policy> replay_policy(const ReplayOptions& options,
                                            const std::vector<policy::PodShape>& typical,
                                            ReplayReport& report);

/// The nodes as the placements leave them, with their fragmentation kept current.
class Mirror {
 public:
  explicit Mirror(std::vector<policy::PodShape> shapes) : shapes_(std::move(shapes)) {}

  void add(const std::string& cluster, const model::NodeState& node);
  /// Returns the problem when the placement does not fit the node.
  std::string place(const std::string& cluster, const v1::SchedulingDecision::Replica& replica,
                    const adapters::TracePod& pod);
  double fragmentation() const { return total_; }

 private:
  std::vector<policy::PodShape> shapes_;
  std::map<std::string, model::NodeState> nodes_;
  std::map<std::string, double> fragmentation_;
  double total_ = 0;
};

/// Decides one pod: its decision, or nullopt with the problem in `report`.
using PodDecider = std::function<std::optional<v1::SchedulingDecision>(const adapters::TracePod&)>;

/// Places the arrivals one at a time through `decide`, books each outcome (placed, checked
/// against over-commits in `mirror`, or failed by the filter that refused it) and the per-load
/// means; stops at the first problem.
void replay_arrivals(const std::vector<adapters::TracePod>& arrivals, const PodDecider& decide,
                     Mirror& mirror, ReplayReport& report,
                     const std::function<void(size_t, size_t)>& progress);

/// The replay straight through policy::decide, on views kept here as the scheduler keeps its
/// copies: the same decisions as through the actors, without their messages.
void replay_direct(const ReplayOptions& options, const ReplaySetup& setup, Mirror& mirror,
                   ReplayReport& report, const std::function<void(size_t, size_t)>& progress);

}  // namespace unisched::runtime::replay_parts
