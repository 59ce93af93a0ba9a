#include "simulation/campaign.hpp"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>
#include <nlohmann/json.hpp>

#include <chrono>

namespace unisched::simulation {

CampaignSummary run_campaign(const RunSettings& base, uint64_t runs, const Progress& progress) {
  CampaignSummary summary;
  summary.first_seed = base.seed;
  const auto started = std::chrono::steady_clock::now();
  for (uint64_t i = 0; i < runs; ++i) {
    RunSettings settings = base;
    settings.seed = base.seed + i;
    RunReport report = run_simulation(settings);
    ++summary.runs;
    summary.faults += report.faults;
    summary.accepted += report.accepted;
    summary.placed += report.placed;
    summary.unschedulable += report.unschedulable;
    summary.lost += report.lost;
    summary.placements_applied += report.placements_applied;
    summary.refused_for_room += report.refused_for_room;
    summary.checks += report.checks;
    summary.deliveries += report.deliveries;
    if (!report.violations.empty()) {
      summary.violations += report.violations.size();
      if (progress.failure) {
        progress.failure(absl::StrCat("seed ", settings.seed, ": ", report.violations.size(),
                                      " violations, first: ", report.violations.front(),
                                      "; replay: ", replay_command(settings)));
      }
      summary.failed.push_back(std::move(report));
    }
    if (progress.note && progress.every > 0 && (i + 1) % progress.every == 0) {
      progress.note(absl::StrCat(i + 1, " of ", runs, " runs, ", summary.faults.total(),
                                 " faults injected, ", summary.violations, " violations"));
    }
  }
  summary.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return summary;
}

std::string to_json(const CampaignSummary& summary, const RunSettings& base) {
  nlohmann::json faults = nlohmann::json::object();
  for (size_t i = 0; i < kFaultKinds; ++i) {
    faults[std::string(kFaultNames[i])] = summary.faults.by_kind[i];
  }
  nlohmann::json failed = nlohmann::json::array();
  for (const RunReport& report : summary.failed) {
    RunSettings settings = base;
    settings.seed = report.seed;
    failed.push_back({{"seed", report.seed},
                      {"violations", report.violations},
                      {"replay", replay_command(settings)}});
  }
  const nlohmann::json out = {
      {"first_seed", summary.first_seed},
      {"runs", summary.runs},
      {"fault_kinds", base.faults.to_string()},
      {"faults_injected", faults},
      {"violations", summary.violations},
      {"failed_runs", failed},
      {"requests_accepted", summary.accepted},
      {"requests_placed", summary.placed},
      {"requests_unschedulable", summary.unschedulable},
      {"requests_lost", summary.lost},
      {"placements_applied", summary.placements_applied},
      {"refused_for_room", summary.refused_for_room},
      {"invariant_checks", summary.checks},
      {"messages_delivered", summary.deliveries},
      {"seconds", summary.seconds},
      {"runs_per_second", summary.seconds > 0 ? summary.runs / summary.seconds : 0.0}};
  return out.dump();
}

std::string to_text(const CampaignSummary& summary, const RunSettings& base) {
  std::string text =
      absl::StrCat("runs ", summary.runs, " (seeds ", summary.first_seed, "..",
                   summary.first_seed + summary.runs - 1, ", faults ", base.faults.to_string(),
                   ")\nfaults injected ", summary.faults.total(), ":");
  for (size_t i = 0; i < kFaultKinds; ++i) {
    absl::StrAppend(&text, " ", std::string(kFaultNames[i]), " ", summary.faults.by_kind[i]);
  }
  absl::StrAppend(
      &text, "\nrequests accepted ", summary.accepted, ": placed ", summary.placed,
      ", unschedulable ", summary.unschedulable, ", lost ", summary.lost, "\nplacements applied ",
      summary.placements_applied, ", refused by clusters for room ", summary.refused_for_room,
      "\ninvariant checks ", summary.checks, ", messages delivered ", summary.deliveries,
      "\ninvariant violations ", summary.violations, " in ", summary.failed.size(), " runs\n",
      absl::StrFormat("%.1f s, %.2f runs/s\n", summary.seconds,
                      summary.seconds > 0 ? summary.runs / summary.seconds : 0.0));
  for (const RunReport& report : summary.failed) {
    RunSettings settings = base;
    settings.seed = report.seed;
    absl::StrAppend(&text, "seed ", report.seed, " failed; replay: ", replay_command(settings),
                    "\n  faults:");
    for (size_t i = 0; i < kFaultKinds; ++i) {
      if (report.faults.by_kind[i] > 0) {
        absl::StrAppend(&text, " ", std::string(kFaultNames[i]), " ", report.faults.by_kind[i]);
      }
    }
    absl::StrAppend(&text, "\n");
    for (const std::string& violation : report.violations) {
      absl::StrAppend(&text, "  ", violation, "\n");
    }
  }
  return text;
}

}  // namespace unisched::simulation
