// Baselines of the FGD paper's simulator, as node scorers: BestFit, DotProd, GpuPacking and
// Random (GpuClustering, which reads the pods on a node, is in gpu_clustering.cpp).
#include <algorithm>

#include "policy/fragmentation.hpp"
#include "policy/plugins/scorers.hpp"
#include "policy/splitmix.hpp"

namespace unisched::policy::plugins {
namespace {

int64_t gpu_milli_asked(const ReplicaDemand& demand) {
  int64_t milli = 0;
  for (const DeviceDemand& device : demand.devices) {
    milli += static_cast<int64_t>(device.count) * device.milli;
  }
  return milli;
}

// The paper's normalisation: its largest node, 128 cores and 8 GPUs.
constexpr double kCpuScale = 128'000;
constexpr double kGpuScale = 8 * model::kWholeDeviceMilli;

int64_t free_cpu(const model::NodeState& node) {
  return node.allocatable_cpu_milli - node.allocated_cpu_milli;
}

/// BestFit: the node left with the least cpu and GPU after the replica, the two weighted
/// equally and scaled by the largest node of the trace (128 cores, 8 GPUs).
class BestFit final : public NodeScorer {
 public:
  const char* name() const override { return "best-fit"; }
  double score(const model::SchedulingRequestSpec&, const ReplicaDemand& demand,
               const ClusterCandidate&, const model::NodeState& node, const NodeFit&,
               CycleState&) const override {
    const double cpu_left = static_cast<double>(free_cpu(node) - demand.cpu_milli);
    const double gpu_left = static_cast<double>(idle_gpu_milli(node) - gpu_milli_asked(demand));
    return 100.0 * (1.0 - (0.5 * cpu_left / kCpuScale + 0.5 * gpu_left / kGpuScale));
  }
};

/// DotProd (Tetris' packing): the smallest dot product of what the node has free with what the
/// replica asks, in cpu and GPU (all its idle GPU milli together, the paper's "merge"), scaled
/// as BestFit.
class DotProduct final : public NodeScorer {
 public:
  const char* name() const override { return "dot-product"; }
  double score(const model::SchedulingRequestSpec&, const ReplicaDemand& demand,
               const ClusterCandidate&, const model::NodeState& node, const NodeFit&,
               CycleState&) const override {
    const double dot = static_cast<double>(free_cpu(node)) / kCpuScale *
                           static_cast<double>(demand.cpu_milli) / kCpuScale +
                       static_cast<double>(idle_gpu_milli(node)) / kGpuScale *
                           static_cast<double>(gpu_milli_asked(demand)) / kGpuScale;
    return 100.0 * (1.0 - dot / 2.0);
  }
};

/// GpuPacking as the paper defines it: a device in part used first (91..100, fuller better),
/// then wholly idle devices of a node in use (33..49, fewer better), then an idle node (its
/// score falls with its devices). Work without GPUs scores 0 everywhere.
class SharePacking final : public NodeScorer {
 public:
  const char* name() const override { return "gpu-share-packing"; }
  double score(const model::SchedulingRequestSpec&, const ReplicaDemand& demand,
               const ClusterCandidate&, const model::NodeState& node, const NodeFit& fit,
               CycleState&) const override {
    if (gpu_milli_asked(demand) == 0) {
      return 0;
    }
    const int32_t idle_devices = node.free_devices();
    if (idle_devices == static_cast<int32_t>(node.devices.size())) {
      return std::max(100 / 3 - idle_devices, idle_devices);
    }
    int32_t idle_taken = 0;
    int32_t idle_percent = 0;  // of the devices taken, summed
    for (const int32_t index : fit.devices) {
      const int32_t idle = idle_milli(node.devices.at(static_cast<size_t>(index)));
      idle_taken += idle == model::kWholeDeviceMilli ? 1 : 0;
      idle_percent += idle * 100 / model::kWholeDeviceMilli;
    }
    if (idle_taken > 0) {
      return std::max(100 / 2 - idle_taken, 100 / 3);
    }
    return std::max(100 - idle_percent / 10, 100 / 2);
  }
};

/// Random: a fresh random score for every node of every decision, so that the best is a
/// uniformly random fitting node.
class RandomScore final : public NodeScorer {
 public:
  const char* name() const override { return "random"; }
  double score(const model::SchedulingRequestSpec&, const ReplicaDemand&, const ClusterCandidate&,
               const model::NodeState&, const NodeFit&, CycleState& cycle) const override {
    return 100.0 * static_cast<double>(cycle.draw() >> 11) / static_cast<double>(uint64_t{1} << 53);
  }
};

/// A share goes to a uniformly random device among those that can hold it: the paper's Random
/// runs so ("random" GPU selection).
class RandomDevice final : public ShareChooser {
 public:
  int32_t choose(const model::NodeState&, const ReplicaDemand&,
                 const std::vector<int32_t>& candidates, CycleState& cycle) const override {
    return candidates[cycle.draw() % candidates.size()];
  }
};

}  // namespace

std::shared_ptr<const NodeScorer> make_best_fit() {
  return std::make_shared<BestFit>();
}

std::shared_ptr<const NodeScorer> make_dot_product() {
  return std::make_shared<DotProduct>();
}

std::shared_ptr<const NodeScorer> make_share_packing() {
  return std::make_shared<SharePacking>();
}

std::shared_ptr<const NodeScorer> make_random() {
  return std::make_shared<RandomScore>();
}

std::shared_ptr<const ShareChooser> make_random_device() {
  return std::make_shared<RandomDevice>();
}

}  // namespace unisched::policy::plugins
