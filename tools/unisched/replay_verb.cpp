// unisched replay: a GPU cluster trace through the real pipeline (runtime/replay).
#include <spdlog/spdlog.h>

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>

#include "runtime/json_report.hpp"
#include "runtime/replay.hpp"
#include "tools/unisched/replay_sweep_output.hpp"
#include "tools/unisched/verbs.hpp"

namespace unisched::cli {
namespace {

// Each option's values and their spellings, one table for reading and for printing.
constexpr std::pair<runtime::TracePartition, const char*> kPartitions[] = {
    {runtime::TracePartition::Model, "model"},
    {runtime::TracePartition::RoundRobin, "round-robin"},
    {runtime::TracePartition::Random, "random"},
};
constexpr std::pair<policy::TieBreak, const char*> kTieBreaks[] = {
    {policy::TieBreak::Name, "name"},
    {policy::TieBreak::Random, "random"},
    {policy::TieBreak::Hashed, "hashed"},
    {policy::TieBreak::Shuffled, "shuffled"},
};

template <class Value, size_t N>
const char* spelling(const std::pair<Value, const char*> (&table)[N], Value value) {
  for (const auto& [known, name] : table) {
    if (known == value) {
      return name;
    }
  }
  return table[0].second;
}

template <class Value, size_t N>
std::optional<Value> spelled(const std::pair<Value, const char*> (&table)[N],
                             const std::string& text) {
  for (const auto& [value, name] : table) {
    if (text == name) {
      return value;
    }
  }
  return std::nullopt;
}

/// The problems of reading one list, each on its own line; true when there were none.
template <class Read>
bool report_read(const Read& read) {
  for (const std::string& problem : read.problems) {
    std::fprintf(stderr, "%s\n", problem.c_str());
  }
  return read.problems.empty();
}

void print_json(const runtime::ReplayOptions& options, const std::string& nodes,
                const std::string& pods, const runtime::ReplayReport& report) {
  using runtime::Json;
  const auto by_load = [](const std::map<int, double>& figures) {
    Json out = Json::object();
    for (const auto& [load, value] : figures) {
      out[std::to_string(load)] = std::round(value * 100) / 100;
    }
    return out;
  };
  Json failed = Json::object();
  for (const auto& [reason, count] : report.failed) {
    failed[reason] = count;
  }
  const Json out{{"nodes", nodes},
                 {"pods_file", pods},
                 {"clusters", options.clusters},
                 {"partition", spelling(kPartitions, options.partition)},
                 {"policy", options.policy},
                 {"ties", spelling(kTieBreaks, report.ties)},
                 {"seed", options.seed},
                 {"tune", std::round(options.tune * 100) / 100},
                 {"pods", report.pods},
                 {"placed", report.placed},
                 {"allocation", by_load(report.allocation)},
                 {"fragmentation", by_load(report.fragmentation)},
                 {"failed", failed}};
  std::printf("%s\n", runtime::dump_json(out).c_str());
}

void print_table(const runtime::ReplayReport& report) {
  std::printf("%-12s %12s %15s\n", "ARRIVED", "ALLOCATED", "FRAGMENTATION");
  for (const auto& [load, allocation] : report.allocation) {
    std::printf("%10d %% %10.2f %% %13.2f %%\n", load, allocation, report.fragmentation.at(load));
  }
  std::printf("%llu pods arrived, %llu placed\n", static_cast<unsigned long long>(report.pods),
              static_cast<unsigned long long>(report.placed));
  for (const auto& [reason, count] : report.failed) {
    std::printf("  failed: %-40s %llu\n", reason.c_str(), static_cast<unsigned long long>(count));
  }
}

/// Reads the flags and both trace files into `options`; 0, or the exit status (2: a usage
/// problem, 1: the files).
int read_replay_options(const ParsedArgs& args, runtime::ReplayOptions& options) {
  if (!args.has("nodes") || !args.has("pods")) {
    std::fprintf(stderr, "error: --nodes CSV and --pods CSV are required\n");
    return 2;
  }
  int64_t clusters = 1;
  int64_t seed = 42;
  std::string error;
  if (!read_int(args, "clusters", 1, 64, clusters, error) ||
      !read_int(args, "seed", 0, INT64_MAX, seed, error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 2;
  }
  options.clusters = static_cast<int>(clusters);
  options.seed = static_cast<uint64_t>(seed);
  const auto partition = spelled(kPartitions, args.value("partition", "model"));
  if (!partition) {
    std::fprintf(stderr, "error: --partition must be model, round-robin or random, not \"%s\"\n",
                 args.value("partition").c_str());
    return 2;
  }
  options.partition = *partition;
  const std::string tune = args.value("tune", "1.3");
  try {
    size_t used = 0;
    options.tune = std::stod(tune, &used);
    if (used != tune.size() || !(options.tune >= 0 && options.tune <= 10)) {
      throw std::invalid_argument(tune);
    }
  } catch (const std::exception&) {
    std::fprintf(stderr, "error: --tune must be a number from 0 to 10, not \"%s\"\n", tune.c_str());
    return 2;
  }
  const std::string report_format = args.value("report", "table");
  if (report_format != "table" && report_format != "json") {
    std::fprintf(stderr, "error: --report must be table or json, not \"%s\"\n",
                 report_format.c_str());
    return 2;
  }
  options.policy = args.value("policy", options.policy);
  options.direct = args.has("direct");
  if (args.has("ties")) {
    options.ties = spelled(kTieBreaks, args.value("ties"));
    if (!options.ties) {
      std::fprintf(stderr, "error: --ties must be shuffled, name, random or hashed, not \"%s\"\n",
                   args.value("ties").c_str());
      return 2;
    }
  }
  auto nodes = adapters::read_trace_nodes(args.value("nodes"));
  auto pods = adapters::read_trace_pods(args.value("pods"));
  const bool nodes_read = report_read(nodes);
  const bool pods_read = report_read(pods);  // both files' problems, in one go
  if (!nodes_read || !pods_read) {
    std::fprintf(stderr, "error: fix the trace files above first\n");
    return 1;
  }
  options.nodes = std::move(nodes.rows);
  options.pods = std::move(pods.rows);
  return 0;
}

int run_replay(const ParsedArgs& args) {
  std::optional<SweepFlags> sweep;
  if (wants_sweep(args)) {
    std::string error;
    sweep = read_sweep_flags(args, error);
    if (!sweep) {
      std::fprintf(stderr, "error: %s\n", error.c_str());
      return 2;
    }
  }
  runtime::ReplayOptions options;
  if (const int status = read_replay_options(args, options); status != 0) {
    return status;
  }
  const std::string report_format = args.value("report", "table");
  if (sweep) {
    return run_replay_sweep(*sweep, options, spelling(kPartitions, options.partition),
                            report_format == "json");
  }
  spdlog::info(
      "replaying {} pods on {} nodes in {} cluster(s) ({} partition), policy {}, seed {}{}",
      options.pods.size(), options.nodes.size(), options.clusters,
      spelling(kPartitions, options.partition), options.policy, options.seed,
      options.direct ? ", directly through the policy" : "");
  const auto report = runtime::replay(options, [](size_t done, size_t total) {
    spdlog::info("replay: {} of {} pods", done, total);
  });
  for (const std::string& problem : report.problems) {
    std::fprintf(stderr, "problem: %s\n", problem.c_str());
  }
  if (!report.problems.empty()) {
    return 1;
  }
  if (report_format == "json") {
    print_json(options, args.value("nodes"), args.value("pods"), report);
  } else {
    print_table(report);
  }
  return 0;
}

}  // namespace

Verb replay_verb() {
  Verb verb{
      "replay",
      "Replay a GPU cluster trace (Alibaba's, as the FGD paper does) through the pipeline",
      "unisched replay --nodes CSV --pods CSV [--clusters K] [--partition model|round-robin|"
      "random] [--policy NAME] [--ties shuffled|name|random|hashed] [--seed N] [--tune 1.3] "
      "[--direct] [--report table|json] [--seeds FIRST-LAST --policy A,B,... [--jobs N] [--at "
      "LOAD] "
      "[--baseline POLICY]]",
      "Builds K simulated clusters from the node list, each with its agent and ClusterActor, and\n"
      "places the pods one at a time through a SchedulerActor: sorted by name, shuffled with the\n"
      "seed, grown with random copies until --tune times the GPU capacity has arrived. No pod\n"
      "leaves; a pod that fits nowhere is skipped. Reports, per arrived load (% of the GPU\n"
      "capacity), the GPU share allocated and the fragmentation (FGD's measure), and the pods\n"
      "that failed by kind and reason.\n"
      "\n"
      "--direct makes the same decisions straight through the policy, on copies of the views\n"
      "kept as the scheduler keeps them, without the actors and their messages: the same\n"
      "figures, many times faster.\n"
      "\n"
      "A sweep (--seeds, or several policies in --policy) replays every policy with every seed,\n"
      "directly, --jobs at a time, and prints per policy the allocation and fragmentation at\n"
      "--at % arrived load (mean, least, most) and, paired seed by seed against --baseline, the\n"
      "mean difference and the seeds won, tied and lost; --report json adds every run's curve.\n"
      "\n"
      "Examples:\n"
      "  unisched replay --nodes ../shared/data/alibaba-gpu-2023/openb_node_list_gpu_node.csv \\\n"
      "      --pods ../shared/data/alibaba-gpu-2023/openb_pod_list_default.csv --report json\n"
      "  unisched replay --nodes ... --pods ... --policy fgd,bestfit,fgd-packed --seeds 42-51",
      {
          {"nodes", '\0', "CSV", false, "the node list (sn,cpu_milli,memory_mib,gpu,model)"},
          {"pods", '\0', "CSV", false,
           "the pod list (name,cpu_milli,memory_mib,num_gpu,gpu_milli[,gpu_spec,...])"},
          {"clusters", '\0', "K", false, "clusters to split the nodes into (default 1)"},
          {"partition", '\0', "HOW", false, "model (default), round-robin or random"},
          {"policy", '\0', "NAME", false,
           "the paper's random, dotprod, gpuclustering, gpupacking, bestfit or fgd (against the "
           "trace's typical pods); fgd-packed (default: FGD, ties to nodes in use); or a preset: "
           "spread, binpack, balanced"},
          {"ties", '\0', "HOW", false,
           "how equal nodes are chosen between, instead of the policy's way: shuffled (a random "
           "order of the nodes drawn from the seed, as the paper's simulator; its baselines' "
           "default), name (the smaller node name), random, or hashed (a fixed hash of the "
           "name)"},
          {"seed", '\0', "N", false, "shuffles the pods (default 42)"},
          {"tune", '\0', "X", false, "copies arrive until X times the GPU capacity (default 1.3)"},
          {"direct", '\0', "", false,
           "decide straight through the policy, without the actors (same decisions, faster)"},
          {"report", '\0', "FORMAT", false, "table (default) or json"},
      },
      run_replay,
  };
  const std::vector<Flag> sweep = sweep_flags();
  verb.flags.insert(verb.flags.end(), sweep.begin(), sweep.end());
  return verb;
}

}  // namespace unisched::cli
