#include "runtime/workload.hpp"

#include "model/manifest.hpp"

namespace unisched::runtime {
namespace {

/// Shapes are written as manifests, so they are validated like any user's request.
model::SchedulingRequestSpec spec(const std::string& body) {
  const auto decoded = model::decode_manifest(
      {"apiVersion: scheduling.cluster.io/v1\nkind: SchedulingRequest\nmetadata:\n  name: shape\n"
       "spec:\n" +
           body,
       1});
  return std::get<model::SchedulingRequest>(*decoded.manifest).spec;
}

}  // namespace

std::vector<WorkloadShape> default_workload() {
  return {
      {"web", 4.0, spec("  replicas: 3\n  resources:\n    cpu: 500m\n    memory: 1Gi\n")},
      {"batch", 3.0, spec("  priority: -10\n  resources:\n    cpu: 4\n    memory: 16Gi\n")},
      {"inference", 2.0,
       spec("  priority: 100\n  resources:\n    cpu: 2\n    memory: 8Gi\n    accelerators:\n"
            "      - count: 1\n        minMemoryPerGPU: 16Gi\n")},
      {"training", 0.5,
       spec("  replicas: 2\n  priority: 500\n  resources:\n    cpu: 32\n    memory: 256Gi\n"
            "    accelerators:\n      - count: 8\n        topology: NVLink\n"
            "  distribution:\n    mode: Together\n    gang: true\n")},
      {"gameserver", 1.0,
       spec("  priority: 200\n  resources:\n    cpu: 1\n    memory: 2Gi\n    hostPorts: [7777]\n"
            "  placement:\n    maxLatency: \"<=2ms\"\n")},
  };
}

WorkloadGenerator::WorkloadGenerator(std::vector<WorkloadShape> shapes, uint64_t seed,
                                     double requests_per_second,
                                     std::chrono::milliseconds mean_runtime)
    : shapes_(std::move(shapes)),
      random_(seed),
      rate_(requests_per_second),
      mean_runtime_(mean_runtime) {}

std::vector<Arrival> WorkloadGenerator::next(std::chrono::milliseconds step) {
  std::vector<Arrival> arrivals;
  if (shapes_.empty() || rate_ <= 0) {
    return arrivals;
  }
  std::vector<double> shares;
  for (const auto& shape : shapes_) {
    shares.push_back(shape.share);
  }
  std::discrete_distribution<size_t> pick(shares.begin(), shares.end());
  std::exponential_distribution<double> runtime(1.0 / static_cast<double>(mean_runtime_.count()));
  const int count =
      std::poisson_distribution<int>(rate_ * std::chrono::duration<double>(step).count())(random_);
  for (int i = 0; i < count; ++i) {
    const WorkloadShape& shape = shapes_[pick(random_)];
    arrivals.push_back({shape.name + "-" + std::to_string(++count_), &shape,
                        std::chrono::milliseconds(static_cast<int64_t>(runtime(random_)) + 1)});
  }
  return arrivals;
}

}  // namespace unisched::runtime
