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
  view.visit_nodes(visit);  // devices of any model
}

bool too_few_devices(const model::ClusterView& view, const ReplicaDemand& demand) {
  // Only counts that no node's over-reservation can make too small: a view holding reservations
  // not yet confirmed may show a node (or a device) allocated beyond what it has, so summed free
  // cpu, memory or device room could hide a node with room. Devices with nothing allocated are
  // never fewer than a node's.
  for (const DeviceDemand& device : demand.devices) {
    int64_t devices = 0;
    int64_t free_devices = 0;
    for (const auto& [name, accelerator] : view.accelerators()) {
      if (device.models.empty() || device.models.accepts(name)) {
        devices += accelerator.devices;
        free_devices += accelerator.free_devices;
      }
    }
    const bool whole = device.milli == model::kWholeDeviceMilli;
    if ((whole ? free_devices : devices) < device.count) {
      return true;
    }
  }
  return false;
}

}  // namespace unisched::policy
