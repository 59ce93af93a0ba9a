// unisched simulate: seeded runs of the whole system under faults (simulation/).
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <string>

#include "simulation/campaign.hpp"
#include "tools/unisched/verbs.hpp"

namespace unisched::cli {
namespace {

bool read_settings(const ParsedArgs& args, simulation::RunSettings& settings, int64_t& runs,
                   std::string& error) {
  int64_t seed = 1;
  int64_t clusters = settings.clusters;
  int64_t schedulers = settings.schedulers;
  int64_t requests = settings.requests;
  int64_t in_flight = settings.in_flight;
  if (!read_int(args, "runs", 1, 100'000'000, runs, error) ||
      !read_int(args, "seed", 0, INT64_MAX, seed, error) ||
      !read_int(args, "clusters", 1, 26, clusters, error) ||
      !read_int(args, "schedulers", 1, 16, schedulers, error) ||
      !read_int(args, "requests", 1, 10'000, requests, error) ||
      !read_int(args, "in-flight", 1, 64, in_flight, error)) {
    return false;
  }
  const auto faults = simulation::FaultSet::parse(args.value("faults", "all"), error);
  if (!faults) {
    error = "--faults: " + error;
    return false;
  }
  settings.seed = static_cast<uint64_t>(seed);
  settings.faults = *faults;
  settings.clusters = static_cast<int>(clusters);
  settings.schedulers = static_cast<int>(schedulers);
  settings.requests = static_cast<int>(requests);
  settings.in_flight = static_cast<int>(in_flight);
  return true;
}

int run_simulate(const ParsedArgs& args) {
  simulation::RunSettings settings;
  int64_t runs = 100;
  std::string error;
  if (!read_settings(args, settings, runs, error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 2;
  }
  const std::string report = args.value("report", "table");
  if (report != "table" && report != "json") {
    std::fprintf(stderr, "error: --report must be table or json\n");
    return 2;
  }
  // The system under test logs as it would in production; thousands of runs of it would bury
  // the campaign's own lines, so it stays quiet unless --log-level asks otherwise.
  if (!args.has("log-level")) {
    spdlog::set_level(spdlog::level::off);
  }
  // After the global level, which applies to every logger already made.
  auto progress_log = spdlog::stderr_color_st("simulate");
  progress_log->set_level(spdlog::level::info);
  simulation::Progress progress;
  progress.every = static_cast<uint64_t>(std::max<int64_t>(1, runs / 10));
  progress.note = [&](const std::string& line) { progress_log->info("{}", line); };
  progress.failure = [&](const std::string& line) { progress_log->error("{}", line); };
  const simulation::CampaignSummary summary =
      simulation::run_campaign(settings, static_cast<uint64_t>(runs), progress);
  const std::string text = report == "json" ? simulation::to_json(summary, settings) + "\n"
                                            : simulation::to_text(summary, settings);
  std::fputs(text.c_str(), stdout);
  return summary.violations == 0 ? 0 : 1;
}

}  // namespace

Verb simulate_verb() {
  return Verb{
      "simulate",
      "Run the whole system in a deterministic simulation under seeded faults",
      "unisched simulate [--runs N] [--seed S] [--faults LIST] [--report table|json]",
      "Runs agents over simulated clusters, ClusterActors, the supervisor, schedulers and the\n"
      "hub with its journal in one process on a virtual clock, with a fault layer between them\n"
      "driven by the seed: messages dropped, duplicated, reordered and delayed; agents cut off\n"
      "and healed; agents, ClusterActors, schedulers and the whole centre crashed and started\n"
      "again. Requests arrive and finish. An observer with its own ledger checks that no node\n"
      "is over-committed, no accepted request is silently lost, no gang is half placed and every\n"
      "view equals its agent's truth once the faults stop. Seeds S .. S+N-1 are run; a failing\n"
      "seed is printed with the command that replays it. Exit status 1 on any violation.\n"
      "\n"
      "Fault kinds: drop, duplicate, reorder, delay, partition, agent-crash,\n"
      "cluster-actor-crash, scheduler-crash, hub-crash (default: all).\n"
      "\n"
      "Example:\n"
      "  unisched simulate --runs 500 --seed 1 --report json",
      {
          {"runs", '\0', "N", false, "runs to make (default 100)"},
          {"seed", '\0', "S", false, "the first seed (default 1)"},
          {"faults", '\0', "LIST", false, "fault kinds, comma-separated, or all (default)"},
          {"clusters", '\0', "K", false, "clusters per run (default 3)"},
          {"schedulers", '\0', "K", false, "schedulers per run (default 2)"},
          {"requests", '\0', "N", false, "requests per run (default 30)"},
          {"in-flight", '\0', "N", false,
           "decisions each scheduler has committing at once on the odd seeds, which commit by "
           "node revisions (default 1)"},
          {"report", '\0', "FORMAT", false, "table (default) or json"},
      },
      run_simulate,
  };
}

}  // namespace unisched::cli
