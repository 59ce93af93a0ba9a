// unisched-bench: named benchmark scenarios, one JSON object per result on stdout and a human
// summary on stderr. Figures are measured, never asserted; see BENCHMARKS.md.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "tools/bench/flags.hpp"
#include "tools/bench/heap.hpp"
#include "tools/bench/ingest.hpp"
#include "tools/bench/scenarios.hpp"

namespace {

constexpr const char* kUsage =
    "usage: unisched-bench [--scenario all|ingest|ingest-remote|resync|schedule|"
    "sample-quality|quota|scale|fleet-memory|full-sync-baseline|kube-ingest|etcd]\n"
    "         [--clusters N] [--nodes N] [--gpus N] [--deltas N] [--updates N] [--window N] "
    "[--rate N]\n"
    "         [--transport caf|grpc|both] [--schedulers N] [--mode cluster|node|both]\n"
    "         [--policy NAME] [--sample N] [--seconds N] [--pairs N] [--in-flight N]\n"
    "         [--committers N] [--writers N] [--storage disk|tmpfs|both]\n"
    "         [--profiles DIR] [--audit-every N] [--node-deltas usage|whole]\n";

/// --help: the usage line, then what each scenario measures.
int help() {
  std::printf(
      "unisched-bench: named benchmark scenarios; JSON lines on stdout, a summary on "
      "stderr.\n%s\nscenarios (each flag has a default of its scenario's own):\n",
      kUsage);
  for (const auto& scenario : unisched::bench::scenarios()) {
    std::printf("  %-19s %s\n", scenario.name, scenario.measures);
  }
  std::printf("\nCurrent figures and how they were taken: BENCHMARKS.md.\n");
  return 0;
}

int usage(const std::string& problem) {
  std::fprintf(stderr, "error: %s\n%s", problem.c_str(), kUsage);
  return 2;
}

/// This binary, to start the agents of the CAF ingest-remote scenario in a process of their own.
std::string self_command() {
  char path[4096];
  const ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
  return length > 0 ? std::string(path, static_cast<size_t>(length)) : "unisched-bench";
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
      return help();
    }
  }
  // Before any thread, and before the fleets take the heap.
  if (const std::string problem = unisched::bench::choose_heap_pages(); !problem.empty()) {
    return usage(problem);
  }
  // Stdout carries only the JSON results; the runtime's logs go to stderr, warnings and up.
  spdlog::set_default_logger(spdlog::stderr_color_mt("bench"));
  spdlog::set_level(spdlog::level::warn);
  std::string problem;
  const auto flags = unisched::bench::Flags::parse(argc, argv, problem);
  if (!flags) {
    return usage(problem);
  }
  if (flags->given("agents-for")) {  // the child of ingest-remote over CAF
    return unisched::bench::run_remote_agents(
        static_cast<uint16_t>(flags->number("agents-for", 0)),
        {flags->number("clusters", 4), flags->number("nodes", 1000), flags->number("deltas", 100),
         flags->number("updates", 1000), flags->number("window", 1), 0, flags->number("gpus", 8),
         false, flags->text("node-deltas", "usage") == "whole"});
  }
  const std::string scenario = flags->text("scenario", "all");
  std::string names;
  bool known = false;
  bool clean = true;
  for (const auto& candidate : unisched::bench::scenarios()) {
    names += std::string(names.empty() ? "" : ", ") + candidate.name;
    if (scenario == "all" || scenario == candidate.name) {
      known = true;
      clean = candidate.run(*flags, self_command()) && clean;
    }
  }
  if (!known) {
    return usage("unknown scenario \"" + scenario + "\" (available: all, " + names + ")");
  }
  return clean ? 0 : 1;
}
