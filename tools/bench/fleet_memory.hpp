// Bench scenario `fleet-memory`: where the heap of `unisched run` goes, part by part. The run's
// pieces are built as their plain cores (no actors, so nothing in flight blurs the figures):
// the simulated clusters, an agent beside each (its copy of what it last pushed), a
// ClusterCore per cluster (the centre's view, indexes, node revisions), the schedulers'
// copies, then 10 simulated seconds of churn through all of them (the change logs).
#pragma once

#include <cstdint>
#include <string>

#include "tools/bench/flags.hpp"

namespace unisched::bench {

struct FleetMemoryParameters {
  int clusters = 50;
  int nodes = 2000;  ///< per cluster
  int schedulers = 2;
  std::string profiles;  ///< directory of ClusterResourceProfiles
};

/// Heap in use (glibc's count of live allocations) taken by each part, in bytes.
struct FleetMemoryResult {
  uint64_t nodes = 0;
  int64_t simulation = 0;  ///< the simulated clusters themselves
  int64_t agents = 0;      ///< the agents' copies of what they pushed
  int64_t centre = 0;      ///< the ClusterStates after their first update
  int64_t schedulers = 0;  ///< every scheduler's copies
  int64_t churn = 0;       ///< growth through 10 s of churn: change logs and what they hold
  std::string problem;
};

FleetMemoryResult fleet_memory(const FleetMemoryParameters& parameters);

/// The scenario at --clusters x --nodes (default 50 x 2,000, `unisched run`'s fleet-scale
/// example); one JSON line.
bool run_fleet_memory(const Flags& flags, const std::string& self_command);

}  // namespace unisched::bench
