// A synthetic workload for the single-node runtime: a seeded mix of request shapes (CPU-only and
// GPU, single replicas and gangs), arriving as a Poisson process and finishing after a while.
#pragma once

#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "model/scheduling_request.hpp"

namespace unisched::runtime {

struct WorkloadShape {
  std::string name;
  double share = 1.0;  ///< relative frequency
  model::SchedulingRequestSpec spec;
};

/// The built-in mix: web services, batch jobs, single-GPU inference, 8-GPU training gangs and
/// a latency-sensitive service with a host port.
std::vector<WorkloadShape> default_workload();

struct Arrival {
  std::string request_id;
  const WorkloadShape* shape = nullptr;
  std::chrono::milliseconds runs_for{0};  ///< how long the work runs once placed
};

class WorkloadGenerator {
 public:
  WorkloadGenerator(std::vector<WorkloadShape> shapes, uint64_t seed, double requests_per_second,
                    std::chrono::milliseconds mean_runtime);

  /// The requests that arrive during the next `step`.
  std::vector<Arrival> next(std::chrono::milliseconds step);

 private:
  std::vector<WorkloadShape> shapes_;
  std::mt19937_64 random_;
  double rate_;
  std::chrono::milliseconds mean_runtime_;
  uint64_t count_ = 0;
};

}  // namespace unisched::runtime
