#include "model/node_usage.hpp"

#include <algorithm>
#include <string>

namespace unisched::model {

bool NodeUsage::operator==(const NodeUsage& other) const {
  return name == other.name && allocated_cpu_milli == other.allocated_cpu_milli &&
         allocated_memory_bytes == other.allocated_memory_bytes && pod_count == other.pod_count &&
         device_allocated_milli == other.device_allocated_milli &&
         host_ports_in_use == other.host_ports_in_use;
}

NodeUsage usage_of(const NodeState& node) {
  NodeUsage usage;
  usage.name = node.name;
  usage.allocated_cpu_milli = node.allocated_cpu_milli;
  usage.allocated_memory_bytes = node.allocated_memory_bytes;
  usage.pod_count = node.pod_count;
  for (const Device& device : node.devices) {
    usage.device_allocated_milli.push_back(device.allocated_milli);
  }
  usage.host_ports_in_use = node.host_ports_in_use;
  return usage;
}

bool only_usage_differs(const NodeState& before, const NodeState& after) {
  const auto same_but_share = [](const Device& a, const Device& b) {
    Device b_with_a_share = b;
    b_with_a_share.allocated_milli = a.allocated_milli;
    return a == b_with_a_share;
  };
  return before.name == after.name && before.node_group == after.node_group &&
         before.allocatable_cpu_milli == after.allocatable_cpu_milli &&
         before.allocatable_memory_bytes == after.allocatable_memory_bytes &&
         before.max_pods == after.max_pods && before.schedulable == after.schedulable &&
         std::equal(before.devices.begin(), before.devices.end(), after.devices.begin(),
                    after.devices.end(), same_but_share) &&
         before.labels == after.labels && before.taints == after.taints;
}

std::optional<std::string> apply_usage(const NodeUsage& usage, NodeState& node) {
  if (usage.name != node.name) {
    return "usage of node \"" + usage.name + "\" put on node \"" + node.name + "\"";
  }
  if (usage.device_allocated_milli.size() != node.devices.size()) {
    return "usage of node \"" + usage.name + "\" gives " +
           std::to_string(usage.device_allocated_milli.size()) + " device shares, the node has " +
           std::to_string(node.devices.size()) + " devices";
  }
  for (size_t d = 0; d < usage.device_allocated_milli.size(); ++d) {
    const int32_t milli = usage.device_allocated_milli[d];
    if (milli < 0 || milli > kMaxDeviceAllocatedMilli) {
      return "usage of node \"" + usage.name + "\" gives device " + std::to_string(d) + " " +
             std::to_string(milli) + " milli, not between 0 and " +
             std::to_string(kMaxDeviceAllocatedMilli);
    }
  }
  node.allocated_cpu_milli = usage.allocated_cpu_milli;
  node.allocated_memory_bytes = usage.allocated_memory_bytes;
  node.pod_count = usage.pod_count;
  for (size_t d = 0; d < node.devices.size(); ++d) {
    node.devices[d].allocated_milli = static_cast<int16_t>(usage.device_allocated_milli[d]);
  }
  node.host_ports_in_use = usage.host_ports_in_use;
  return std::nullopt;
}

}  // namespace unisched::model
