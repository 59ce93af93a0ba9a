// Two baselines of the FGD paper's simulator, as node scorers: BestFit and Random.
#include <atomic>

#include "policy/fragmentation.hpp"
#include "policy/plugins/scorers.hpp"

namespace unisched::policy::plugins {
namespace {

int64_t gpu_milli_asked(const ReplicaDemand& demand) {
  int64_t milli = 0;
  for (const DeviceDemand& device : demand.devices) {
    milli += static_cast<int64_t>(device.count) * device.milli;
  }
  return milli;
}

/// BestFit: the node left with the least cpu and GPU after the replica, the two weighted
/// equally and scaled by the largest node of the trace (128 cores, 8 GPUs).
class BestFit final : public NodeScorer {
 public:
  const char* name() const override { return "best-fit"; }
  double score(const model::SchedulingRequestSpec&, const ReplicaDemand& demand,
               const ClusterCandidate&, const model::NodeState& node,
               const NodeFit&) const override {
    constexpr double kCpuScale = 128'000;
    constexpr double kGpuScale = 8 * model::kWholeDeviceMilli;
    const double cpu_left = static_cast<double>(node.allocatable_cpu_milli -
                                                node.allocated_cpu_milli - demand.cpu_milli);
    const double gpu_left = static_cast<double>(idle_gpu_milli(node) - gpu_milli_asked(demand));
    return 100.0 * (1.0 - (0.5 * cpu_left / kCpuScale + 0.5 * gpu_left / kGpuScale));
  }
};

/// Random: a fresh random score for every node of every decision, so that the best is a
/// uniformly random fitting node. Draws come from a counter, so runs repeat.
class RandomScore final : public NodeScorer {
 public:
  const char* name() const override { return "random"; }
  double score(const model::SchedulingRequestSpec&, const ReplicaDemand&, const ClusterCandidate&,
               const model::NodeState&, const NodeFit&) const override {
    uint64_t x = draws_.fetch_add(0x9e3779b97f4a7c15ull) + 0x9e3779b97f4a7c15ull;  // splitmix64
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    x ^= x >> 31;
    return 100.0 * static_cast<double>(x >> 11) / static_cast<double>(uint64_t{1} << 53);
  }

 private:
  mutable std::atomic<uint64_t> draws_{0};
};

}  // namespace

std::shared_ptr<const NodeScorer> make_best_fit() {
  return std::make_shared<BestFit>();
}

std::shared_ptr<const NodeScorer> make_random() {
  return std::make_shared<RandomScore>();
}

}  // namespace unisched::policy::plugins
