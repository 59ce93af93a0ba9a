#include "model/reservation.hpp"

#include <algorithm>

namespace unisched::model {

std::optional<std::string> reservation_conflict(const NodeState& node, const Reservation& r) {
  if (!node.schedulable) {
    return "node " + node.name + " is not schedulable";
  }
  if (node.pod_count >= node.max_pods) {
    return "node " + node.name + " has no pod slot left";
  }
  if (node.allocatable_cpu_milli - node.allocated_cpu_milli < r.cpu_milli) {
    return "node " + node.name + " lacks cpu";
  }
  if (node.allocatable_memory_bytes - node.allocated_memory_bytes < r.memory_bytes) {
    return "node " + node.name + " lacks memory";
  }
  for (const int32_t index : r.devices) {
    if (index < 0 || static_cast<size_t>(index) >= node.devices.size() ||
        node.devices[static_cast<size_t>(index)].allocated_milli != 0) {
      return "node " + node.name + " device " + std::to_string(index) + " is not free";
    }
  }
  for (const int32_t port : r.host_ports) {
    if (std::binary_search(node.host_ports_in_use.begin(), node.host_ports_in_use.end(), port)) {
      return "node " + node.name + " host port " + std::to_string(port) + " is in use";
    }
  }
  return std::nullopt;
}

void apply_reservation(NodeState& node, const Reservation& r, int sign) {
  node.allocated_cpu_milli += sign * r.cpu_milli;
  node.allocated_memory_bytes += sign * r.memory_bytes;
  node.pod_count += sign;
  for (const int32_t index : r.devices) {
    if (index >= 0 && static_cast<size_t>(index) < node.devices.size()) {
      node.devices[static_cast<size_t>(index)].allocated_milli += sign * kWholeDeviceMilli;
    }
  }
  auto& ports = node.host_ports_in_use;
  for (const int32_t port : r.host_ports) {
    if (sign > 0) {
      ports.insert(std::upper_bound(ports.begin(), ports.end(), port), port);
    } else if (auto it = std::find(ports.begin(), ports.end(), port); it != ports.end()) {
      ports.erase(it);
    }
  }
}

}  // namespace unisched::model
