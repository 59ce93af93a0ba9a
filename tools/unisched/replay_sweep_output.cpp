#include "tools/unisched/replay_sweep_output.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <thread>

#include "policy/framework.hpp"
#include "policy/trace_policies.hpp"
#include "runtime/json_report.hpp"
#include "runtime/replay_sweep.hpp"

namespace unisched::cli {
namespace {

constexpr size_t kMostSeeds = 10'000;

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t end = text.find(separator); end != std::string::npos;
       start = end + 1, end = text.find(separator, start)) {
    parts.push_back(text.substr(start, end - start));
  }
  parts.push_back(text.substr(start));
  return parts;
}

std::optional<uint64_t> whole_number(const std::string& text) {
  if (text.empty() || text.size() > 18 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  return std::stoull(text);
}

/// "42-51" (both ends included) or "42,45,50".
std::optional<std::vector<uint64_t>> read_seeds(const std::string& text, std::string& error) {
  error = "--seeds must be FIRST-LAST or S,S,... of whole numbers (at most 10000 seeds), not \"" +
          text + "\"";
  std::vector<uint64_t> seeds;
  if (const auto dash = text.find('-'); dash != std::string::npos) {
    const auto first = whole_number(text.substr(0, dash));
    const auto last = whole_number(text.substr(dash + 1));
    if (!first || !last || *last < *first || *last - *first >= kMostSeeds) {
      return std::nullopt;
    }
    for (uint64_t seed = *first; seed <= *last; ++seed) {
      seeds.push_back(seed);
    }
    return seeds;
  }
  for (const std::string& part : split(text, ',')) {
    const auto seed = whole_number(part);
    if (!seed || seeds.size() == kMostSeeds) {
      return std::nullopt;
    }
    seeds.push_back(*seed);
  }
  return seeds;
}

bool known_policy(const std::string& name) {
  const auto names = policy::trace_policy_names();
  std::string unused;
  return std::find(names.begin(), names.end(), name) != names.end() ||
         policy::Registry::builtin().preset(name, unused).has_value();
}

double rounded(double value) { return std::round(value * 100) / 100; }

void print_table(const std::vector<runtime::PolicySummary>& summaries, const SweepFlags& flags) {
  std::printf("at %d%% arrived load, %zu seed(s); paired seed by seed against %s\n", flags.load,
              flags.seeds.size(), flags.baseline.c_str());
  std::printf("%-14s %4s %9s %8s %8s %9s %11s %14s\n", "POLICY", "RUNS", "ALLOCATED", "LEAST",
              "MOST", "FRAGMENTED", "PAIRED DIFF", "WON/TIED/LOST");
  for (const auto& summary : summaries) {
    std::printf("%-14s %4zu %8.2f%% %7.2f%% %7.2f%% %9.2f%% %+10.2f %6zu/%zu/%zu\n",
                summary.policy.c_str(), summary.runs, summary.allocation.mean,
                summary.allocation.least, summary.allocation.most, summary.fragmentation.mean,
                summary.paired_mean_difference, summary.wins, summary.ties, summary.losses);
  }
}

void print_json(const std::vector<runtime::SweepRun>& runs,
                const std::vector<runtime::PolicySummary>& summaries, const SweepFlags& flags,
                const runtime::ReplayOptions& options, const std::string& partition) {
  using runtime::Json;
  Json policies = Json::array();
  for (const auto& summary : summaries) {
    policies.push_back(
        {{"policy", summary.policy},
         {"runs", summary.runs},
         {"allocation", {{"mean", rounded(summary.allocation.mean)},
                         {"least", rounded(summary.allocation.least)},
                         {"most", rounded(summary.allocation.most)}}},
         {"fragmentation", {{"mean", rounded(summary.fragmentation.mean)},
                            {"least", rounded(summary.fragmentation.least)},
                            {"most", rounded(summary.fragmentation.most)}}},
         {"paired_mean_difference", rounded(summary.paired_mean_difference)},
         {"won", summary.wins},
         {"tied", summary.ties},
         {"lost", summary.losses}});
  }
  Json each = Json::array();
  for (const auto& run : runs) {
    Json allocation = Json::object();
    Json fragmentation = Json::object();
    for (const auto& [load, value] : run.report.allocation) {
      allocation[std::to_string(load)] = rounded(value);
      fragmentation[std::to_string(load)] = rounded(run.report.fragmentation.at(load));
    }
    each.push_back({{"policy", run.policy},
                    {"seed", run.seed},
                    {"placed", run.report.placed},
                    {"allocation", allocation},
                    {"fragmentation", fragmentation}});
  }
  const Json out{{"clusters", options.clusters}, {"partition", partition},
                 {"load", flags.load},           {"baseline", flags.baseline},
                 {"policies", policies},         {"runs", each}};
  std::printf("%s\n", runtime::dump_json(out).c_str());
}

}  // namespace

bool wants_sweep(const ParsedArgs& args) {
  return args.has("seeds") || args.value("policy").find(',') != std::string::npos;
}

std::optional<SweepFlags> read_sweep_flags(const ParsedArgs& args, std::string& error) {
  SweepFlags flags;
  flags.policies = split(args.value("policy", "fgd-packed"), ',');
  for (const std::string& name : flags.policies) {
    if (!known_policy(name)) {
      error = "--policy: unknown policy \"" + name + "\" in the list";
      return std::nullopt;
    }
  }
  const std::string seeds = args.value("seeds", args.value("seed", "42"));
  const auto read = read_seeds(seeds, error);
  if (!read) {
    return std::nullopt;
  }
  flags.seeds = *read;
  int64_t jobs = std::max(1u, std::thread::hardware_concurrency());
  int64_t load = flags.load;
  if (!read_int(args, "jobs", 1, 256, jobs, error) || !read_int(args, "at", 1, 1000, load, error)) {
    return std::nullopt;
  }
  if (std::find(runtime::kReportedLoads.begin(), runtime::kReportedLoads.end(), load) ==
      runtime::kReportedLoads.end()) {
    error = "--at must be one of the reported loads (50, 80, 90, 100, 110, 120, 130), not " +
            std::to_string(load);
    return std::nullopt;
  }
  flags.jobs = static_cast<int>(jobs);
  flags.load = static_cast<int>(load);
  const bool has_fgd =
      std::find(flags.policies.begin(), flags.policies.end(), "fgd") != flags.policies.end();
  flags.baseline = args.value("baseline", has_fgd ? "fgd" : flags.policies.front());
  if (std::find(flags.policies.begin(), flags.policies.end(), flags.baseline) ==
      flags.policies.end()) {
    error = "--baseline must be one of the policies of --policy, not \"" + flags.baseline + "\"";
    return std::nullopt;
  }
  return flags;
}

int run_replay_sweep(const SweepFlags& flags, const runtime::ReplayOptions& options,
                     const std::string& partition, bool json) {
  runtime::SweepOptions sweep;
  sweep.base = options;
  sweep.policies = flags.policies;
  sweep.seeds = flags.seeds;
  sweep.jobs = flags.jobs;
  spdlog::info("sweep: {} policies x {} seeds, directly through the policy, {} at a time",
               flags.policies.size(), flags.seeds.size(), flags.jobs);
  const auto runs = runtime::sweep(sweep, [](size_t done, size_t total) {
    spdlog::info("sweep: {} of {} replays", done, total);
  });
  bool clean = true;
  for (const auto& run : runs) {
    for (const std::string& problem : run.report.problems) {
      std::fprintf(stderr, "problem (%s, seed %llu): %s\n", run.policy.c_str(),
                   static_cast<unsigned long long>(run.seed), problem.c_str());
      clean = false;
    }
  }
  const auto summaries = runtime::summarize(runs, flags.load, flags.baseline);
  if (json) {
    print_json(runs, summaries, flags, options, partition);
  } else {
    print_table(summaries, flags);
  }
  return clean ? 0 : 1;
}

std::vector<Flag> sweep_flags() {
  return {
      {"seeds", '\0', "FIRST-LAST", false,
       "replay each policy of --policy (a comma-separated list) with each of these seeds "
       "(or S,S,...), directly, and compare them"},
      {"jobs", '\0', "N", false, "replays of a sweep run at once (default: the cores)"},
      {"at", '\0', "LOAD", false, "the arrived load % a sweep's table compares at (default 100)"},
      {"baseline", '\0', "POLICY", false,
       "the policy a sweep pairs each against, seed by seed (default fgd if swept, else the "
       "first)"},
  };
}

}  // namespace unisched::cli
