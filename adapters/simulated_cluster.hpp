// A simulated cluster built from a ClusterResourceProfile: deterministic from a seed, with
// churn (nodes joining, leaving and draining; background pods coming and going; storage use
// moving) at configurable rates. Each poll_changes() advances simulated time by one step, so the
// same seed gives the same history however fast the caller polls.
#pragma once

#include <chrono>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "adapters/cluster_adapter.hpp"

namespace unisched::adapters {

struct SimulationOptions {
  uint64_t seed = 1;
  /// Node membership events per simulated second: joins, leaves, drains and undrains.
  double membership_events_per_second = 0.5;
  /// Background pod arrivals and departures per simulated second.
  double pod_events_per_second = 20.0;
  /// Simulated time per poll_changes().
  std::chrono::milliseconds step{100};
  /// Build this many nodes (cycling through the profile's shapes) instead of the profile's own.
  int64_t node_count = 0;
  /// Names for the nodes built, in order (node group by node group); the nodes past the list
  /// keep "<clusterID>-<group>-<n>". A replayed trace keeps its own node names so.
  std::vector<std::string> node_names;
};

class SimulatedCluster final : public ClusterAdapter {
 public:
  /// `profile` must be validated (its defaults filled in).
  SimulatedCluster(model::ClusterResourceProfile profile, SimulationOptions options);

  const model::ClusterResourceProfile& profile() const override { return profile_; }
  std::vector<model::NodeState> list_nodes() const override;
  std::vector<model::NodeChange> poll_changes() override;
  model::ClusterResources resources() const override { return resources_; }
  PlacementOutcome apply(const Placement& placement) override;
  bool release(const std::string& placement_id) override;
  std::vector<std::string> running_placements() const override;

  /// Simulated steps taken so far.
  uint64_t steps() const { return steps_; }

 private:
  struct Pod {
    std::string node;
    int64_t cpu_milli = 0;
    int64_t memory_bytes = 0;
    std::vector<int32_t> devices;
    int32_t milli_per_device = 0;
    std::vector<int32_t> host_ports;
  };

  void step();
  void membership_event();
  void pod_arrival();
  void pod_departure();
  void storage_event();
  bool fits(const model::NodeState& node, const Pod& pod) const;
  void place(const std::string& id, Pod pod);
  void unplace(const Pod& pod);
  model::NodeState* random_node();
  void record(model::NodeChangeKind kind, const model::NodeState& node);

  model::ClusterResourceProfile profile_;
  SimulationOptions options_;
  std::mt19937_64 random_;
  std::vector<model::NodeState> shapes_;           // templates for joining nodes
  std::map<std::string, model::NodeState> nodes_;  // ordered: deterministic picks
  std::map<std::string, Pod> pods_;                // background pods and placements by id
  model::ClusterResources resources_;
  std::vector<model::NodeChange> changes_;
  uint64_t steps_ = 0;
  uint64_t next_node_ = 0;
  uint64_t next_pod_ = 0;
};

}  // namespace unisched::adapters
