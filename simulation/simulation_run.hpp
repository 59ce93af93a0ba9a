// One seeded run of the whole system under faults, and its report. The run is deterministic:
// the same settings give the same history, message by message (RunReport::digest).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "simulation/fault_kinds.hpp"

namespace unisched::simulation {

struct RunSettings {
  uint64_t seed = 1;
  FaultSet faults;
  int clusters = 3;
  int schedulers = 2;
  int requests = 30;
  /// Decisions each scheduler may have in flight on the seeds that commit by node revisions.
  int in_flight = 1;
  /// Virtual time during which requests arrive and faults are injected.
  std::chrono::milliseconds fault_phase{4000};
  /// The most virtual time the system gets to settle once the faults stop.
  std::chrono::milliseconds settle_limit{30000};
  /// Where the hub's journal goes (a directory that exists); empty: a temporary one.
  std::string work_dir;
};

struct RunReport {
  uint64_t seed = 0;
  FaultCounts faults;
  std::vector<std::string> violations;
  uint64_t accepted = 0;
  uint64_t placed = 0;  ///< placed or finished
  uint64_t unschedulable = 0;
  uint64_t lost = 0;
  uint64_t partially_placed = 0;
  uint64_t placements_applied = 0;
  uint64_t refused_for_room = 0;
  uint64_t checks = 0;
  uint64_t deliveries = 0;
  uint64_t digest = 0;
  int64_t virtual_ms = 0;
  bool settled = false;
};

RunReport run_simulation(const RunSettings& settings);

/// The command that replays a run.
std::string replay_command(const RunSettings& settings);

}  // namespace unisched::simulation
