#include "model/node_state.hpp"

#include <algorithm>

namespace unisched::model {

int32_t NodeState::free_devices(const std::string& model) const {
  return static_cast<int32_t>(std::count_if(devices.begin(), devices.end(), [&](const Device& d) {
    return d.model == model && d.allocated_milli == 0;
  }));
}

bool NodeState::operator==(const NodeState& o) const {
  const auto same_taints = [](const std::vector<Taint>& a, const std::vector<Taint>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const Taint& x, const Taint& y) {
      return x.key == y.key && x.value == y.value && x.effect == y.effect;
    });
  };
  return name == o.name && node_group == o.node_group &&
         allocatable_cpu_milli == o.allocatable_cpu_milli &&
         allocatable_memory_bytes == o.allocatable_memory_bytes && max_pods == o.max_pods &&
         allocated_cpu_milli == o.allocated_cpu_milli &&
         allocated_memory_bytes == o.allocated_memory_bytes && pod_count == o.pod_count &&
         devices == o.devices && host_ports_in_use == o.host_ports_in_use && labels == o.labels &&
         same_taints(taints, o.taints) && schedulable == o.schedulable;
}

}  // namespace unisched::model
