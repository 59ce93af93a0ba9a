#include "model/node_state.hpp"

#include <algorithm>

namespace unisched::model {

int32_t NodeState::free_devices(const std::string& model) const {
  return static_cast<int32_t>(std::count_if(devices.begin(), devices.end(), [&](const Device& d) {
    return d.model == model && d.allocated_milli == 0;
  }));
}

int32_t NodeState::free_devices() const {
  return static_cast<int32_t>(std::count_if(
      devices.begin(), devices.end(), [](const Device& d) { return d.allocated_milli == 0; }));
}

std::optional<Shortfall> capacity_shortfall(const NodeState& node, int64_t cpu_milli,
                                            int64_t memory_bytes,
                                            const std::vector<int32_t>& host_ports,
                                            int32_t* busy_port) {
  if (!node.schedulable) {
    return Shortfall::Unschedulable;
  }
  if (node.pod_count >= node.max_pods) {
    return Shortfall::PodSlot;
  }
  if (node.allocatable_cpu_milli - node.allocated_cpu_milli < cpu_milli) {
    return Shortfall::Cpu;
  }
  if (node.allocatable_memory_bytes - node.allocated_memory_bytes < memory_bytes) {
    return Shortfall::Memory;
  }
  for (const int32_t port : host_ports) {
    if (std::binary_search(node.host_ports_in_use.begin(), node.host_ports_in_use.end(), port)) {
      if (busy_port != nullptr) {
        *busy_port = port;
      }
      return Shortfall::HostPort;
    }
  }
  return std::nullopt;
}

bool NodeState::operator==(const NodeState& o) const {
  return name == o.name && node_group == o.node_group &&
         allocatable_cpu_milli == o.allocatable_cpu_milli &&
         allocatable_memory_bytes == o.allocatable_memory_bytes && max_pods == o.max_pods &&
         allocated_cpu_milli == o.allocated_cpu_milli &&
         allocated_memory_bytes == o.allocated_memory_bytes && pod_count == o.pod_count &&
         devices == o.devices && host_ports_in_use == o.host_ports_in_use && labels == o.labels &&
         taints == o.taints && schedulable == o.schedulable;
}

bool counts_devices_whole(const NodeState& node) {
  const auto found = node.labels.find(kWholeDevicesLabel);
  return found != node.labels.end() && found->second == "true";
}

}  // namespace unisched::model
