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

std::optional<NodeMisfit> cluster_shortfall(const model::ClusterView& view,
                                            const ReplicaDemand& demand) {
  const model::ClusterTotals& totals = view.totals();
  if (totals.allocatable_cpu_milli - totals.allocated_cpu_milli < demand.cpu_milli) {
    return NodeMisfit::Cpu;
  }
  if (totals.allocatable_memory_bytes - totals.allocated_memory_bytes < demand.memory_bytes) {
    return NodeMisfit::Memory;
  }
  for (const DeviceDemand& device : demand.devices) {
    int64_t free_devices = 0;
    int64_t free_milli = 0;
    for (const auto& [name, accelerator] : view.accelerators()) {
      if (device.models.empty() || device.models.accepts(model::Symbol(name))) {
        free_devices += accelerator.free_devices;
        free_milli += accelerator.devices * model::kWholeDeviceMilli - accelerator.allocated_milli;
      }
    }
    const bool whole = device.milli == model::kWholeDeviceMilli;
    if (whole ? free_devices < device.count : free_milli < int64_t{device.milli} * device.count) {
      return NodeMisfit::Devices;
    }
  }
  return std::nullopt;
}

}  // namespace unisched::policy
