#include "adapters/gpu_trace_workload.hpp"

#include <algorithm>
#include <random>

namespace unisched::adapters {

int64_t requested_gpu_milli(const TracePod& pod) {
  return static_cast<int64_t>(pod.gpus) * pod.gpu_milli;
}

int64_t gpu_capacity_milli(const std::vector<TraceNode>& nodes) {
  int64_t total = 0;
  for (const TraceNode& node : nodes) {
    total += static_cast<int64_t>(node.gpus) * model::kWholeDeviceMilli;
  }
  return total;
}

std::vector<TracePod> arrival_order(std::vector<TracePod> pods, uint64_t seed, double tune,
                                    int64_t capacity_milli) {
  std::sort(pods.begin(), pods.end(),
            [](const TracePod& a, const TracePod& b) { return a.name < b.name; });
  std::mt19937_64 random(seed);
  std::shuffle(pods.begin(), pods.end(), random);
  int64_t requested = 0;
  for (const TracePod& pod : pods) {
    requested += requested_gpu_milli(pod);
  }
  const auto target = static_cast<int64_t>(tune * static_cast<double>(capacity_milli));
  const size_t originals = pods.size();
  std::uniform_int_distribution<size_t> pick(0, originals == 0 ? 0 : originals - 1);
  for (uint64_t copy = 0; originals > 0 && requested < target; ++copy) {
    TracePod drawn = pods[pick(random)];
    drawn.name += "-copy-" + std::to_string(copy);
    requested += requested_gpu_milli(drawn);
    pods.push_back(std::move(drawn));
  }
  return pods;
}

model::SchedulingRequestSpec request_for(const TracePod& pod) {
  model::SchedulingRequestSpec spec;
  spec.resources.cpu = *model::Quantity::parse(std::to_string(pod.cpu_milli) + "m");
  spec.resources.memory =
      model::Quantity::from_units(pod.memory_mib << 20, model::QuantityFormat::BinarySI);
  if (pod.gpus > 0) {
    model::AcceleratorRequest gpus;
    gpus.type = model::AcceleratorType::GPU;
    if (pod.models.size() == 1) {
      gpus.model = pod.models.front();
    } else {
      gpus.models = pod.models;
    }
    if (pod.gpu_milli < model::kWholeDeviceMilli) {
      gpus.count = 1;
      gpus.share = *model::Quantity::parse(std::to_string(pod.gpu_milli) + "m");
    } else {
      gpus.count = pod.gpus;
    }
    spec.resources.accelerators.push_back(std::move(gpus));
  }
  return spec;
}

}  // namespace unisched::adapters
