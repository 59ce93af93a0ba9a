#include "policy/candidates.hpp"

namespace unisched::policy {

void visit_candidates(const model::ClusterView& view, const ReplicaDemand& demand,
                      const std::function<bool(const model::NodeState&)>& visit) {
  for (const DeviceDemand& device : demand.devices) {
    // Whole devices of one model: the free-device index has them. A share may also go to a
    // device in part used, which that index leaves out.
    if (device.models.size() == 1 && device.milli == model::kWholeDeviceMilli) {
      view.visit_free_devices(device.models.front(), device.count, visit);
      return;
    }
  }
  if (demand.devices.empty()) {
    view.visit_free_cpu(demand.cpu_milli, visit);
    return;
  }
  for (const model::NodeState* node : view.sorted_nodes()) {  // devices of any model
    if (!visit(*node)) {
      return;
    }
  }
}

}  // namespace unisched::policy
