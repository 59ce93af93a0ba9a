// unisched-bench: named benchmark scenarios, one JSON object per result on stdout and a human
// summary on stderr. Figures are measured, never asserted; see BENCHMARKS.md.
//
//   unisched-bench [--scenario ingest-remote|resync] [--clusters N] [--nodes N] [--deltas N]
//                  [--updates N]
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "tools/bench/ingest_grpc.hpp"
#include "tools/bench/resync.hpp"

namespace {

int usage(const std::string& problem) {
  std::fprintf(stderr,
               "error: %s\nusage: unisched-bench [--scenario ingest-remote|resync] [--clusters N] "
               "[--nodes N] [--deltas N] [--updates N]\n",
               problem.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  // Stdout carries only the JSON results; the runtime's logs go to stderr, warnings and up.
  spdlog::set_default_logger(spdlog::stderr_color_mt("bench"));
  spdlog::set_level(spdlog::level::warn);
  std::map<std::string, std::string> flags = {{"scenario", "ingest-remote"}};
  for (int i = 1; i < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag.rfind("--", 0) != 0 || i + 1 >= argc) {
      return usage("expected --flag VALUE pairs, got \"" + flag + "\"");
    }
    flags[flag.substr(2)] = argv[i + 1];
  }
  unisched::bench::IngestParameters parameters;
  const std::map<std::string, int*> numbers = {{"clusters", &parameters.clusters},
                                               {"nodes", &parameters.nodes},
                                               {"deltas", &parameters.deltas_per_update},
                                               {"updates", &parameters.updates}};
  for (const auto& [name, value] : flags) {
    if (name == "scenario") {
      continue;
    }
    const auto target = numbers.find(name);
    if (target == numbers.end()) {
      return usage("unknown flag --" + name);
    }
    char* end = nullptr;
    const long parsed = std::strtol(value.c_str(), &end, 10);
    if (end == value.c_str() || *end != '\0' || parsed < 1 || parsed > 10'000'000) {
      return usage("--" + name + " must be a whole number from 1 to 10000000, not \"" + value +
                   "\"");
    }
    *target->second = static_cast<int>(parsed);
  }
  const std::string scenario = flags["scenario"];
  if (scenario != "ingest-remote" && scenario != "resync") {
    return usage("unknown scenario \"" + scenario + "\" (available: ingest-remote, resync)");
  }
  if (scenario == "resync") {
    // --nodes sizes the snapshot; without it, the sizes issue 7 names.
    const std::vector<int> sizes =
        flags.count("nodes") ? std::vector<int>{parameters.nodes} : std::vector<int>{5'000, 50'000};
    for (const int nodes : sizes) {
      const auto result = unisched::bench::resync(nodes, nodes > 10'000 ? 5 : 21);
      std::printf(
          "{\"scenario\": \"resync\", \"cores\": %u, \"nodes\": %d, \"resync_ms\": %.3f, "
          "\"decode_ms\": %.3f, \"bytes_per_node\": %.1f, \"ok\": %s}\n",
          std::thread::hardware_concurrency(), nodes, result.resync_ms, result.decode_ms,
          result.bytes_per_node, result.problem.empty() ? "true" : "false");
      std::fprintf(stderr, "resync of %d nodes: %.2f ms (%.2f ms decoding), %.0f bytes/node\n",
                   nodes, result.resync_ms, result.decode_ms, result.bytes_per_node);
      if (!result.problem.empty()) {
        std::fprintf(stderr, "problem: %s\n", result.problem.c_str());
        return 1;
      }
    }
    return 0;
  }
  std::fprintf(stderr, "ingest-remote over gRPC: %d clusters x %d nodes, %d updates of %d deltas\n",
               parameters.clusters, parameters.nodes, parameters.updates,
               parameters.deltas_per_update);
  const auto result = unisched::bench::ingest_over_grpc(parameters);
  std::printf(
      "{\"scenario\": \"ingest-remote\", \"transport\": \"grpc\", \"cores\": %u, "
      "\"clusters\": %d, \"nodes\": %d, \"deltas_per_update\": %d, \"updates\": %d, "
      "\"deltas\": %llu, \"seconds\": %.3f, \"deltas_per_s\": %.0f, \"updates_per_s\": %.0f, "
      "\"p50_ms\": %.3f, \"p99_ms\": %.3f, \"ok\": %s}\n",
      std::thread::hardware_concurrency(), parameters.clusters, parameters.nodes,
      parameters.deltas_per_update, parameters.updates,
      static_cast<unsigned long long>(result.deltas), result.seconds, result.deltas_per_s,
      result.updates_per_s, result.p50_ms, result.p99_ms,
      result.problem.empty() ? "true" : "false");
  std::fprintf(stderr,
               "%.0f node deltas/s (%.0f updates/s), ack latency p50 %.2f ms, p99 %.2f ms\n",
               result.deltas_per_s, result.updates_per_s, result.p50_ms, result.p99_ms);
  if (!result.problem.empty()) {
    std::fprintf(stderr, "problem: %s\n", result.problem.c_str());
    return 1;
  }
  return 0;
}
