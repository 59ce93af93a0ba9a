// What every bench scenario shares: synthetic nodes, percentiles, the process's own resource
// use (resident memory, CPU time) read from the kernel, and the child processes some start.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "messages/unisched.pb.h"
#include "model/cluster_profile.hpp"
#include "tools/bench/parameters.hpp"

namespace unisched::bench {

using Clock = std::chrono::steady_clock;

/// A node named node-INDEX: 96 cores, 1 TiB, kSyntheticPodSlots pods, `gpus` NVLinked A100s of
/// which every third (by index) is in use, and `allocated_cpu_milli` in use.
v1::NodeState synthetic_node(int index, int64_t allocated_cpu_milli, int gpus);
/// The pods a synthetic node holds at most.
inline constexpr int kSyntheticPodSlots = 110;
/// The index of the synthetic node so named ("node-INDEX"); nullopt for any other name.
std::optional<size_t> synthetic_node_index(std::string_view name);

/// An update adding nodes 0..nodes-1 (a cluster's first update); version fields unset.
v1::IncrementalUpdate node_listing(int nodes, int gpus);

/// Updates that each change `changes` distinct random nodes of `nodes`, to cycle through; the
/// node indexes of each update's changes are in `nodes_changed`.
struct ChangeVariants {
  std::vector<v1::IncrementalUpdate> updates;
  std::vector<std::vector<int>> nodes_changed;
};
ChangeVariants change_variants(int nodes, int changes, int gpus, uint64_t seed);

/// The clusters `unisched run --clusters count` builds from the profiles in `directory`
/// (runtime::plan_clusters); empty, with `problem` set, when the directory has none usable.
std::vector<model::ClusterResourceProfile> run_clusters(const std::string& directory, int count,
                                                        std::string& problem);

/// The p-quantile (0..1) of `values`, nearest rank; 0 when empty.
double percentile(std::vector<double> values, double p);

double milliseconds_since(Clock::time_point start);

/// Fills in a stream's counts and rates from its per-update Ack latencies (ms) and its seconds.
void count_streamed(IngestResult& result, const std::vector<double>& ack_latencies,
                    const StreamParameters& parameters);

/// CPU time this process used so far (user + system), in seconds.
double cpu_seconds();

/// The whole text of a file; empty when it cannot be read.
std::string read_text(const std::filesystem::path& path);

/// Starts `args` (the first an absolute path) as a child process writing its stdout and stderr
/// to `log`. Its pid, or 0 when it could not be started.
pid_t spawn_logged(std::vector<std::string> args, const std::filesystem::path& log);

}  // namespace unisched::bench
