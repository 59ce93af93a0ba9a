// Profiles and adapters for tests of the metadata plane.
#pragma once

#include <boost/test/unit_test.hpp>
#include <memory>
#include <string>
#include <utility>

#include "adapters/simulated_cluster.hpp"
#include "model/cluster_view.hpp"
#include "model/manifest.hpp"

namespace unisched::testing {

/// A small heterogeneous cluster: NVLink GPU nodes and CPU nodes.
inline model::ClusterResourceProfile small_profile(const std::string& cluster_id = "sim") {
  const std::string yaml = R"(apiVersion: scheduling.cluster.io/v1
kind: ClusterResourceProfile
metadata:
  name: )" + cluster_id + R"(
spec:
  clusterID: )" + cluster_id +
                           R"(
  network:
    latency: "<1ms"
  storage:
    - class: ssd
      capacity: 10Ti
  topology:
    region: r1
    zone: z1
  nodeGroups:
    - name: gpu
      count: 4
      node:
        cpu: "32"
        memory: 256Gi
        accelerators:
          - model: A100
            count: 4
            topology: NVLink
            memoryPerGPU: 80Gi
    - name: cpu
      count: 6
      node:
        cpu: "16"
        memory: 64Gi
)";
  const auto decoded = model::decode_manifest({yaml, 1});
  BOOST_TEST_REQUIRE(decoded.manifest.has_value());
  return std::get<model::ClusterResourceProfile>(*decoded.manifest);
}

inline std::unique_ptr<adapters::SimulatedCluster> simulated(uint64_t seed, double membership = 2.0,
                                                             double pods = 40.0) {
  adapters::SimulationOptions options;
  options.seed = seed;
  options.membership_events_per_second = membership;
  options.pod_events_per_second = pods;
  return std::make_unique<adapters::SimulatedCluster>(small_profile(), options);
}

/// A simulated cluster that says, once asked to, that it relisted (as a Kubernetes adapter does
/// after a watch's 410).
class RelistingCluster final : public adapters::ClusterAdapter {
 public:
  explicit RelistingCluster(std::unique_ptr<adapters::SimulatedCluster> cluster)
      : cluster_(std::move(cluster)) {}
  void relist_next() { relisted_ = true; }

  const model::ClusterResourceProfile& profile() const override { return cluster_->profile(); }
  std::vector<model::NodeState> list_nodes() const override { return cluster_->list_nodes(); }
  std::vector<model::NodeChange> poll_changes() override { return cluster_->poll_changes(); }
  model::ClusterResources resources() const override { return cluster_->resources(); }
  adapters::PlacementOutcome apply(const adapters::Placement& placement) override {
    return cluster_->apply(placement);
  }
  bool release(const std::string& id) override { return cluster_->release(id); }
  std::vector<std::string> running_placements() const override {
    return cluster_->running_placements();
  }
  bool take_relisted() override { return std::exchange(relisted_, false); }

 private:
  std::unique_ptr<adapters::SimulatedCluster> cluster_;
  bool relisted_ = false;
};

/// The view holds exactly `truth`, and its aggregates and index agree with its nodes.
inline void expect_view_matches(const model::ClusterView& view,
                                const std::vector<model::NodeState>& truth,
                                const std::string& context) {
  const auto nodes = view.sorted_nodes();
  BOOST_TEST_REQUIRE(nodes.size() == truth.size(), context);
  model::ClusterTotals totals;
  std::map<std::string, int64_t> free_devices;
  for (size_t i = 0; i < nodes.size(); ++i) {
    BOOST_TEST_REQUIRE((*nodes[i] == truth[i]),
                       context << ": node " << truth[i].name << " differs");
    totals.nodes += 1;
    totals.schedulable_nodes += truth[i].schedulable ? 1 : 0;
    totals.allocatable_cpu_milli += truth[i].allocatable_cpu_milli;
    totals.allocated_cpu_milli += truth[i].allocated_cpu_milli;
    totals.allocatable_memory_bytes += truth[i].allocatable_memory_bytes;
    totals.allocated_memory_bytes += truth[i].allocated_memory_bytes;
    totals.pods += truth[i].pod_count;
    for (const auto& device : truth[i].devices) {
      free_devices[device.model] += device.allocated_milli == 0 ? 1 : 0;
    }
  }
  BOOST_TEST((view.totals() == totals), context << ": totals disagree with the nodes");
  for (const auto& [model, free] : free_devices) {
    BOOST_TEST(view.accelerators().at(model).free_devices == free, context);
  }
  if (!view.scheduling_indexes()) {
    return;  // the centre's view: no policy index to check
  }
  for (const int64_t threshold : {int64_t{0}, int64_t{1000}, int64_t{8000}}) {
    const auto fitting = std::count_if(truth.begin(), truth.end(), [&](const model::NodeState& n) {
      return n.allocatable_cpu_milli - n.allocated_cpu_milli >= threshold;
    });
    BOOST_TEST(view.nodes_with_free_cpu(threshold).size() == static_cast<size_t>(fitting),
               context << ": free-cpu index disagrees at " << threshold << "m");
  }
  for (const auto& [model, free] : free_devices) {
    int64_t indexed = 0;
    for (const auto* node : view.nodes_with_free_devices(model, 1)) {
      indexed += node->free_devices(model);
    }
    BOOST_TEST(indexed == free, context << ": free-device index disagrees for " << model);
  }
}

/// The same against shared states (a snapshot's).
inline void expect_view_matches(const model::ClusterView& view,
                                const std::vector<std::shared_ptr<const model::NodeState>>& truth,
                                const std::string& context) {
  std::vector<model::NodeState> states;
  for (const auto& node : truth) {
    states.push_back(*node);
  }
  expect_view_matches(view, states, context);
}

}  // namespace unisched::testing
