#include "policy/fragmentation.hpp"

#include <algorithm>

namespace unisched::policy {
namespace {

int32_t idle(const model::Device& device) {
  return std::max(model::kWholeDeviceMilli - device.allocated_milli, 0);
}

bool allowed(const model::Device& device, const PodShape& shape) {
  return shape.models.empty() || std::find(shape.models.begin(), shape.models.end(),
                                           device.model.str()) != shape.models.end();
}

}  // namespace

std::vector<PodShape> typical_shapes(const std::vector<PodShape>& pods, double coverage) {
  std::vector<PodShape> shapes;  // distinct, in the order first seen, weight = count
  for (const PodShape& pod : pods) {
    const auto known = std::find(shapes.begin(), shapes.end(), pod);
    if (known == shapes.end()) {
      shapes.push_back(pod);
      shapes.back().weight = 1;
    } else {
      known->weight += 1;
    }
  }
  std::stable_sort(shapes.begin(), shapes.end(),
                   [](const PodShape& a, const PodShape& b) { return a.weight > b.weight; });
  const double wanted = coverage * static_cast<double>(pods.size());
  double covered = 0;
  size_t kept = 0;
  while (kept < shapes.size() && covered < wanted) {
    covered += shapes[kept++].weight;
  }
  shapes.resize(kept);
  for (PodShape& shape : shapes) {
    shape.weight /= covered;
  }
  return shapes;
}

bool shape_fits(const model::NodeState& node, const PodShape& shape) {
  if (node.allocatable_cpu_milli - node.allocated_cpu_milli < shape.cpu_milli) {
    return false;
  }
  if (shape.gpus == 0) {
    return true;
  }
  int32_t usable = 0;
  for (const model::Device& device : node.devices) {
    if (allowed(device, shape) && idle(device) >= shape.gpu_milli) {
      ++usable;
    }
  }
  // A share needs one device with that much idle; whole GPUs need that many wholly idle.
  return usable >= (shape.gpu_milli < model::kWholeDeviceMilli ? 1 : shape.gpus);
}

int64_t idle_gpu_milli(const model::NodeState& node) {
  int64_t total = 0;
  for (const model::Device& device : node.devices) {
    total += idle(device);
  }
  return total;
}

double node_fragmentation(const model::NodeState& node, const std::vector<PodShape>& shapes) {
  const auto all_idle = static_cast<double>(idle_gpu_milli(node));
  double fragmentation = 0;
  for (const PodShape& shape : shapes) {
    if (shape.gpus == 0 || !shape_fits(node, shape)) {
      fragmentation += shape.weight * all_idle;
      continue;
    }
    int64_t unusable = 0;
    for (const model::Device& device : node.devices) {
      if (idle(device) < shape.gpu_milli) {
        unusable += idle(device);
      }
    }
    fragmentation += shape.weight * static_cast<double>(unusable);
  }
  return fragmentation;
}

}  // namespace unisched::policy
