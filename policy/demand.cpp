#include "policy/demand.hpp"

#include <algorithm>

#include "model/accelerator_names.hpp"

namespace unisched::policy {

bool ModelFilter::accepts(const model::Symbol& model) const {
  if (wanted_.empty()) {
    return true;
  }
  for (const auto& [text, verdict] : verdicts_) {
    if (text == &model.str()) {
      return verdict;
    }
  }
  const bool verdict = std::any_of(wanted_.begin(), wanted_.end(), [&](const std::string& wanted) {
    return model::model_matches(wanted, model.str());
  });
  verdicts_.emplace_back(&model.str(), verdict);
  return verdict;
}

ReplicaDemand demand_of(const model::SchedulingRequestSpec& spec) {
  ReplicaDemand demand;
  demand.cpu_milli = spec.resources.cpu.milli_value().value_or(0);
  demand.memory_bytes = spec.resources.memory.value().value_or(0);
  for (const auto& accelerator : spec.resources.accelerators) {
    DeviceDemand device;
    device.type = accelerator.type;
    device.resource = accelerator.resource;
    device.models = model::accepted_models(accelerator);
    device.count = static_cast<int32_t>(accelerator.count);
    device.milli = model::milli_per_device(accelerator);
    device.min_memory_bytes = accelerator.min_memory_per_device
                                  ? accelerator.min_memory_per_device->value().value_or(0)
                                  : 0;
    device.link = accelerator.topology;
    device.min_link_generation = accelerator.min_link_generation;
    demand.devices.push_back(std::move(device));
  }
  for (const int64_t port : spec.resources.host_ports) {
    demand.host_ports.push_back(static_cast<int32_t>(port));
  }
  std::sort(demand.host_ports.begin(), demand.host_ports.end());
  return demand;
}

}  // namespace unisched::policy
