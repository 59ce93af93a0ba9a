// What a simulation run asks of the system: the clusters' profiles and a seeded mix of requests
// (single GPUs, GPU shares, host ports, gangs spread across clusters and gangs kept together),
// as manifests a client submits. Plain C++.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "model/cluster_profile.hpp"

namespace unisched::simulation {

struct SimulatedRequest {
  std::string name;
  int replicas = 1;
  bool gang = false;
  std::string manifest;  ///< one YAML document
};

/// A small cluster of NVLink GPU nodes and CPU nodes; nullopt only if the profile were invalid.
model::ClusterResourceProfile simulation_profile(const std::string& cluster_id);

/// The `index`th request of a run, drawn from `random`.
SimulatedRequest draw_request(int index, std::mt19937_64& random);

/// A small cpu-only request pinned to `cluster_id`: any healthy cluster of the run has room for
/// it once the run's work is done, so it must be placed (the run's check that the system still
/// places work after the faults).
SimulatedRequest probe_request(const std::string& cluster_id);

}  // namespace unisched::simulation
