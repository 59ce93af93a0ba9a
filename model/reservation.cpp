#include "model/reservation.hpp"

#include <algorithm>
#include <limits>

namespace unisched::model {
namespace {

int32_t milli_at(const Reservation& r, size_t i) {
  return i < r.device_milli.size() ? r.device_milli[i] : kWholeDeviceMilli;
}

}  // namespace

std::optional<std::string> reservation_conflict(const NodeState& node, const Reservation& r) {
  int32_t busy_port = 0;
  if (const auto lacks =
          capacity_shortfall(node, r.cpu_milli, r.memory_bytes, r.host_ports, &busy_port)) {
    switch (*lacks) {
      case Shortfall::Unschedulable:
        return "node " + node.name + " is not schedulable";
      case Shortfall::PodSlot:
        return "node " + node.name + " has no pod slot left";
      case Shortfall::Cpu:
        return "node " + node.name + " lacks cpu";
      case Shortfall::Memory:
        return "node " + node.name + " lacks memory";
      case Shortfall::HostPort:
        return "node " + node.name + " host port " + std::to_string(busy_port) + " is in use";
    }
  }
  if (!r.device_milli.empty() && r.device_milli.size() != r.devices.size()) {
    return "placement " + r.id + " gives " + std::to_string(r.device_milli.size()) +
           " device shares for " + std::to_string(r.devices.size()) + " devices";
  }
  for (const int32_t milli : r.device_milli) {
    if (milli <= 0 || milli > kWholeDeviceMilli) {
      return "placement " + r.id + " takes " + std::to_string(milli) +
             " milli of a device (1 to 1000)";
    }
  }
  for (size_t i = 0; i < r.devices.size(); ++i) {
    const int32_t index = r.devices[i];
    if (index < 0 || static_cast<size_t>(index) >= node.devices.size() ||
        node.devices[static_cast<size_t>(index)].allocated_milli + milli_at(r, i) >
            kWholeDeviceMilli) {
      if (milli_at(r, i) == kWholeDeviceMilli || index < 0 ||
          static_cast<size_t>(index) >= node.devices.size()) {
        return "node " + node.name + " device " + std::to_string(index) + " is not free";
      }
      return "node " + node.name + " device " + std::to_string(index) + " has " +
             std::to_string(kWholeDeviceMilli -
                            node.devices[static_cast<size_t>(index)].allocated_milli) +
             " milli free, not " + std::to_string(milli_at(r, i));
    }
  }
  return std::nullopt;
}

void apply_reservation(NodeState& node, const Reservation& r, int sign) {
  node.allocated_cpu_milli += sign * r.cpu_milli;
  node.allocated_memory_bytes += sign * r.memory_bytes;
  node.pod_count += sign;
  for (size_t i = 0; i < r.devices.size(); ++i) {
    const int32_t index = r.devices[i];
    if (index >= 0 && static_cast<size_t>(index) < node.devices.size()) {
      // A share checked to fit (reservation_conflict) stays within 16 bits; one put on a device
      // a cluster reports shared far past whole stops at the most a view holds.
      auto& allocated = node.devices[static_cast<size_t>(index)].allocated_milli;
      allocated = static_cast<int16_t>(std::clamp<int32_t>(allocated + sign * milli_at(r, i),
                                                           std::numeric_limits<int16_t>::min(),
                                                           kMaxDeviceAllocatedMilli));
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
