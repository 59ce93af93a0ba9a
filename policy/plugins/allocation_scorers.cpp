#include "policy/plugins/scorers.hpp"

namespace unisched::policy::plugins {
namespace {

/// The share of cpu and memory left free on `node` after one replica, 0..1.
double free_share_after(const ReplicaDemand& demand, const model::NodeState& node) {
  const auto share = [](int64_t allocatable, int64_t used) {
    return allocatable <= 0
               ? 0.0
               : static_cast<double>(allocatable - used) / static_cast<double>(allocatable);
  };
  return (share(node.allocatable_cpu_milli, node.allocated_cpu_milli + demand.cpu_milli) +
          share(node.allocatable_memory_bytes, node.allocated_memory_bytes + demand.memory_bytes)) /
         2.0;
}

/// Spread: prefer the node left with the most free cpu and memory.
class LeastAllocated final : public NodeScorer {
 public:
  const char* name() const override { return "least-allocated"; }
  double score(const model::SchedulingRequestSpec&, const ReplicaDemand& demand,
               const ClusterCandidate&, const model::NodeState& node, const NodeFit&,
               CycleState&) const override {
    return 100.0 * free_share_after(demand, node);
  }
};

/// Bin packing: prefer the node left with the least free cpu and memory.
class MostAllocated final : public NodeScorer {
 public:
  const char* name() const override { return "most-allocated"; }
  double score(const model::SchedulingRequestSpec&, const ReplicaDemand& demand,
               const ClusterCandidate&, const model::NodeState& node, const NodeFit&,
               CycleState&) const override {
    return 100.0 * (1.0 - free_share_after(demand, node));
  }
};

/// Prefer the node with more of its GPU in use already (before the replica): used as a small
/// second score, it sends work that scores alike to nodes in use, so idle nodes stay whole.
class GpuInUse final : public NodeScorer {
 public:
  const char* name() const override { return "gpu-in-use"; }
  double score(const model::SchedulingRequestSpec&, const ReplicaDemand&, const ClusterCandidate&,
               const model::NodeState& node, const NodeFit&, CycleState&) const override {
    if (node.devices.empty()) {
      return 0;
    }
    int64_t used = 0;
    for (const model::Device& device : node.devices) {
      used += device.allocated_milli;
    }
    return 100.0 * static_cast<double>(used) /
           static_cast<double>(node.devices.size() * model::kWholeDeviceMilli);
  }
};

}  // namespace

std::shared_ptr<const NodeScorer> make_gpu_in_use() {
  return std::make_shared<GpuInUse>();
}

std::shared_ptr<const NodeScorer> make_least_allocated() {
  return std::make_shared<LeastAllocated>();
}
std::shared_ptr<const NodeScorer> make_most_allocated() {
  return std::make_shared<MostAllocated>();
}

}  // namespace unisched::policy::plugins
