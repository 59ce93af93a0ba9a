// Many seeded runs and their sum: what `unisched simulate` prints and writes as JSON.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "simulation/simulation_run.hpp"

namespace unisched::simulation {

struct CampaignSummary {
  uint64_t first_seed = 0;
  uint64_t runs = 0;
  FaultCounts faults;
  uint64_t violations = 0;
  std::vector<RunReport> failed;  ///< every run with a violation
  uint64_t accepted = 0;
  uint64_t placed = 0;
  uint64_t unschedulable = 0;
  uint64_t lost = 0;
  uint64_t placements_applied = 0;
  uint64_t refused_for_room = 0;
  uint64_t checks = 0;
  uint64_t deliveries = 0;
  double seconds = 0;  ///< wall time
};

/// Where the campaign reports progress (every `every` runs) and each failing seed as it fails.
struct Progress {
  uint64_t every = 0;
  std::function<void(const std::string&)> note;
  std::function<void(const std::string&)> failure;
};

/// Runs seeds `base.seed` .. `base.seed + runs - 1`.
CampaignSummary run_campaign(const RunSettings& base, uint64_t runs, const Progress& progress);

/// The summary as one JSON object (each failed run with its violations and replay command).
std::string to_json(const CampaignSummary& summary, const RunSettings& base);
/// The summary for a terminal.
std::string to_text(const CampaignSummary& summary, const RunSettings& base);

}  // namespace unisched::simulation
