#include "policy/candidates.hpp"

namespace unisched::policy {

std::vector<const model::NodeState*> candidate_nodes(const model::ClusterView& view,
                                                     const ReplicaDemand& demand) {
  for (const DeviceDemand& device : demand.devices) {
    if (!device.model.empty()) {
      return view.nodes_with_free_devices(device.model, device.count);
    }
  }
  if (demand.devices.empty()) {
    return view.nodes_with_free_cpu(demand.cpu_milli);
  }
  return view.sorted_nodes();  // devices of any model: every node may have some
}

}  // namespace unisched::policy
