#include "policy/candidates.hpp"

#include <vector>

namespace unisched::policy {

void visit_candidates(const model::ClusterView& view, const ReplicaDemand& demand,
                      const std::function<bool(const model::NodeState&)>& visit) {
  for (const DeviceDemand& device : demand.devices) {
    // Whole devices of models asked for: when one model of the cluster is one of them, the
    // free-device index has the nodes. A share may also go to a device in part used, which that
    // index leaves out; several matching models fall through to the scan, which sees each node
    // once.
    if (device.models.empty() || device.milli != model::kWholeDeviceMilli) {
      continue;
    }
    std::vector<model::Symbol> matching;
    for (const model::Symbol& model : view.models_with_free_devices()) {
      if (device.models.accepts(model)) {
        matching.push_back(model);
      }
    }
    if (matching.size() <= 1) {
      if (!matching.empty()) {
        view.visit_free_devices(matching.front(), device.count, visit);
      }
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
