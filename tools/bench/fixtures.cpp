#include "tools/bench/fixtures.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/strip.h"

#include "runtime/manifest_loader.hpp"
#include "runtime/single_node.hpp"

extern char** environ;

namespace unisched::bench {

std::vector<model::ClusterResourceProfile> run_clusters(const std::string& directory, int count,
                                                        std::string& problem) {
  const runtime::ManifestSet set = runtime::load_manifests({directory});
  std::vector<model::ClusterResourceProfile> profiles;
  for (const auto& loaded : set.manifests) {
    if (const auto* profile = std::get_if<model::ClusterResourceProfile>(&loaded.manifest)) {
      profiles.push_back(*profile);
    }
  }
  if (!set.problems.empty() || profiles.empty()) {
    problem = "no usable ClusterResourceProfile in " + directory;
    return {};
  }
  return runtime::plan_clusters(profiles, count);
}

std::optional<size_t> synthetic_node_index(std::string_view name) {
  absl::string_view digits(name.data(), name.size());  // Debian's Abseil has its own string_view
  size_t index = 0;
  if (!absl::ConsumePrefix(&digits, "node-") || !absl::SimpleAtoi(digits, &index)) {
    return std::nullopt;
  }
  return index;
}

v1::NodeState synthetic_node(int index, int64_t allocated_cpu_milli, int gpus) {
  v1::NodeState node;
  node.set_name("node-" + std::to_string(index));
  node.set_node_group("a100");
  node.set_allocatable_cpu_milli(96'000);
  node.set_allocatable_memory_bytes(int64_t{1024} << 30);
  node.set_max_pods(kSyntheticPodSlots);
  node.set_allocated_cpu_milli(allocated_cpu_milli);
  node.set_schedulable(true);
  for (int d = 0; d < gpus; ++d) {
    v1::Accelerator* device = node.add_accelerators();
    device->set_model("NVIDIA-A100-SXM4-80GB");
    device->set_memory_bytes(int64_t{80} << 30);
    device->set_interconnect(v1::NVLINK);
    device->set_allocated_milli((index + d) % 3 == 0 ? 1000 : 0);
  }
  return node;
}

v1::IncrementalUpdate node_listing(int nodes, int gpus) {
  v1::IncrementalUpdate update;
  for (int n = 0; n < nodes; ++n) {
    auto* delta = update.add_node_deltas();
    delta->set_op(v1::NodeDelta::ADD);
    *delta->mutable_node() = synthetic_node(n, 0, gpus);
  }
  return update;
}

ChangeVariants change_variants(int nodes, int changes, int gpus, uint64_t seed) {
  ChangeVariants variants;
  std::mt19937_64 random(seed);
  std::vector<int> every_node(static_cast<size_t>(nodes));
  std::iota(every_node.begin(), every_node.end(), 0);
  for (int v = 0; v < 16; ++v) {
    std::shuffle(every_node.begin(), every_node.end(), random);
    const auto changed = static_cast<size_t>(std::min(changes, nodes));
    std::vector<int> chosen(every_node.begin(), every_node.begin() + changed);
    v1::IncrementalUpdate update;
    for (const int node : chosen) {
      auto* delta = update.add_node_deltas();
      delta->set_op(v1::NodeDelta::UPDATE);
      *delta->mutable_node() =
          synthetic_node(node, static_cast<int64_t>(random() % 24) * 4'000, gpus);
    }
    variants.updates.push_back(std::move(update));
    variants.nodes_changed.push_back(std::move(chosen));
  }
  return variants;
}

double percentile(std::vector<double> values, double p) {
  if (values.empty()) {
    return 0;
  }
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1, static_cast<size_t>(p * (values.size() - 1) + 0.5))];
}

double milliseconds_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

void count_streamed(IngestResult& result, const std::vector<double>& ack_latencies,
                    const StreamParameters& parameters) {
  result.deltas = ack_latencies.size() *
                  static_cast<uint64_t>(std::min(parameters.deltas_per_update, parameters.nodes));
  result.deltas_per_s =
      result.seconds > 0 ? static_cast<double>(result.deltas) / result.seconds : 0;
  result.ack_p50_ms = percentile(ack_latencies, 0.50);
  result.ack_p99_ms = percentile(ack_latencies, 0.99);
}

double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream file(path);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

pid_t spawn_logged(std::vector<std::string> args, const std::filesystem::path& log) {
  std::vector<char*> argv;
  for (std::string& arg : args) {
    argv.push_back(arg.data());
  }
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  if (posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ) != 0) {
    pid = 0;
  }
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

}  // namespace unisched::bench
