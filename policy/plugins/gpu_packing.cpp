#include "policy/plugins/scorers.hpp"

namespace unisched::policy::plugins {
namespace {

/// GPU-fragmentation-aware packing: device work goes where it leaves the fewest free devices
/// behind (so whole nodes stay free for large requests), and work without devices stays off
/// nodes that have them.
class GpuPacking final : public NodeScorer {
 public:
  const char* name() const override { return "gpu-packing"; }
  double score(const model::SchedulingRequestSpec&, const ReplicaDemand& demand,
               const ClusterCandidate&, const model::NodeState& node, const NodeFit&,
               CycleState&) const override {
    if (node.devices.empty()) {
      return demand.devices.empty() ? 100.0 : 0.0;
    }
    if (demand.devices.empty()) {
      return 0.0;
    }
    const int64_t free = node.free_devices();
    int64_t wanted = 0;
    for (const auto& device : demand.devices) {
      // A share may go to a device in part used: it need not leave a free one behind.
      wanted += device.milli == model::kWholeDeviceMilli ? device.count : 0;
    }
    const double left = static_cast<double>(std::max<int64_t>(free - wanted, 0));
    return 100.0 * (1.0 - left / static_cast<double>(node.devices.size()));
  }
};

}  // namespace

std::shared_ptr<const NodeScorer> make_gpu_packing() {
  return std::make_shared<GpuPacking>();
}

}  // namespace unisched::policy::plugins
