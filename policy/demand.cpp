#include "policy/demand.hpp"

#include <algorithm>

namespace unisched::policy {

ReplicaDemand demand_of(const model::SchedulingRequestSpec& spec) {
  ReplicaDemand demand;
  demand.cpu_milli = spec.resources.cpu.milli_value().value_or(0);
  demand.memory_bytes = spec.resources.memory.value().value_or(0);
  for (const auto& accelerator : spec.resources.accelerators) {
    DeviceDemand device;
    device.type = accelerator.type;
    device.models = model::accepted_models(accelerator);
    device.count = static_cast<int32_t>(accelerator.count);
    device.milli = model::milli_per_device(accelerator);
    device.min_memory_bytes = accelerator.min_memory_per_device
                                  ? accelerator.min_memory_per_device->value().value_or(0)
                                  : 0;
    device.link = accelerator.topology;
    demand.devices.push_back(std::move(device));
  }
  for (const int64_t port : spec.resources.host_ports) {
    demand.host_ports.push_back(static_cast<int32_t>(port));
  }
  std::sort(demand.host_ports.begin(), demand.host_ports.end());
  return demand;
}

}  // namespace unisched::policy
