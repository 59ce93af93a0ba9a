// What a placement takes of its queue's budget (SchedulerState::quota_placement): cpu in
// milli-cores, memory in bytes, devices in milli-units (a share of a device takes its share)
// under their kind ("GPU": every GPU, whatever its vendor or naming, so no device escapes a
// quota) and under their resource name ("nvidia.com/gpu") where the cluster or the request
// names one; with where it is, for the quota's caps.
#include "actors/scheduler_state.hpp"
#include "model/accelerator_names.hpp"

namespace unisched::actors {

v1::QuotaPlacement SchedulerState::quota_placement(const LocalCluster& local,
                                                   const policy::ReplicaPlacement& placement,
                                                   const std::string& placement_id,
                                                   const model::SchedulingRequestSpec& spec) const {
  v1::QuotaPlacement out;
  out.set_id(placement_id);
  out.set_cluster(local.info.id);
  out.set_region(local.info.region);
  out.set_zone(local.info.zone);
  auto& amounts = *out.mutable_amounts();
  if (placement.cpu_milli > 0) {
    amounts["cpu"] = placement.cpu_milli;
  }
  if (placement.memory_bytes > 0) {
    amounts["memory"] = placement.memory_bytes;
  }
  const model::NodeState* node = local.view.find(placement.node);
  if (node == nullptr) {
    return out;
  }
  // A device whose cluster does not name its resource counts as the request named it.
  const std::string requested =
      spec.resources.accelerators.empty() ? "" : spec.resources.accelerators.front().resource;
  for (size_t i = 0; i < placement.devices.size(); ++i) {
    const auto index = static_cast<size_t>(placement.devices[i]);
    if (index >= node->devices.size()) {
      continue;
    }
    const model::Device& device = node->devices[index];
    const int64_t milli =
        i < placement.device_milli.size() ? placement.device_milli[i] : model::kWholeDeviceMilli;
    amounts[model::accelerator_type_text({device.type, ""})] += milli;
    const std::string& resource = device.resource.str().empty() ? requested : device.resource.str();
    if (!resource.empty()) {
      amounts[resource] += milli;
    }
    out.set_model(device.model.str());
  }
  return out;
}

}  // namespace unisched::actors
