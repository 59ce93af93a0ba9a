#include "tools/bench/etcd_side.hpp"

#include <absl/strings/str_format.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "tools/bench/etcd/etcd_kv.hpp"
#include "tools/bench/etcd/etcd_server.hpp"
#include "tools/bench/fixtures.hpp"

namespace unisched::bench {
namespace {

std::string node_key(const std::string& prefix, int node) {
  return absl::StrFormat("%s%05d", prefix, node);
}

/// What the racing committers share: counts, latencies, the first error.
struct Tally {
  std::mutex mutex;
  uint64_t commits = 0;
  uint64_t conflicts = 0;
  std::vector<double> latencies_ms;
  std::string problem;
};

/// One committer: claims random nodes until the deadline, each by reading the node's revision
/// and then a compare-and-set on it. The read stands for the fresh copy a scheduler's informer
/// (Kubernetes) or view subscription (unisched) holds, so conflicts are true races only.
void commit_until(const std::string& endpoint, const EtcdParameters& parameters, int index,
                  Clock::time_point deadline, Tally& tally) {
  EtcdKv kv(endpoint);
  std::string error;
  std::mt19937_64 random(static_cast<uint64_t>(index) + 1);
  std::uniform_int_distribution<int> pick(0, parameters.nodes - 1);
  uint64_t commits = 0;
  uint64_t conflicts = 0;
  std::vector<double> latencies;
  for (uint64_t n = 0; error.empty() && Clock::now() < deadline; ++n) {
    const std::string key = node_key("/unisched-bench/nodes/", pick(random));
    const std::string value = absl::StrFormat("committer-%d/placement-%d", index, n);
    int64_t revision = kv.revision(key, error);
    if (!error.empty()) {
      break;
    }
    const auto start = Clock::now();
    const EtcdKv::Cas outcome = kv.compare_and_put(key, revision, value, error);
    latencies.push_back(milliseconds_since(start));
    commits += outcome == EtcdKv::Cas::Committed ? 1 : 0;
    conflicts += outcome == EtcdKv::Cas::Conflict ? 1 : 0;
  }
  std::lock_guard<std::mutex> lock(tally.mutex);
  tally.commits += commits;
  tally.conflicts += conflicts;
  tally.latencies_ms.insert(tally.latencies_ms.end(), latencies.begin(), latencies.end());
  if (!error.empty() && tally.problem.empty()) {
    tally.problem = error;
  }
}

void run_committers(const std::string& endpoint, const EtcdParameters& parameters,
                    EtcdResult& result) {
  Tally tally;
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::seconds(parameters.seconds);
  std::vector<std::thread> committers;
  for (int i = 0; i < parameters.committers; ++i) {
    committers.emplace_back([&, i] { commit_until(endpoint, parameters, i, deadline, tally); });
  }
  for (std::thread& committer : committers) {
    committer.join();
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  result.commits = tally.commits;
  result.conflicts = tally.conflicts;
  result.commits_per_s = static_cast<double>(tally.commits) / seconds;
  const uint64_t attempts = tally.commits + tally.conflicts;
  result.conflict_rate = attempts == 0 ? 0 : static_cast<double>(tally.conflicts) / attempts;
  result.commit_p50_ms = percentile(tally.latencies_ms, 0.5);
  result.commit_p99_ms = percentile(tally.latencies_ms, 0.99);
  result.problem = tally.problem;
}

/// Writers put node statuses (random nodes, `status_bytes` each) until the deadline.
void run_status_writers(const std::string& endpoint, const EtcdParameters& parameters,
                        EtcdResult& result) {
  std::atomic<uint64_t> puts{0};
  std::mutex mutex;
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::seconds(parameters.seconds);
  std::vector<std::thread> writers;
  for (int i = 0; i < parameters.writers; ++i) {
    writers.emplace_back([&, i] {
      EtcdKv kv(endpoint);
      std::mt19937_64 random(static_cast<uint64_t>(i) + 101);
      std::uniform_int_distribution<int> pick(0, parameters.nodes - 1);
      const std::string status(static_cast<size_t>(parameters.status_bytes), 's');
      std::string error;
      while (error.empty() && Clock::now() < deadline) {
        if (kv.put(node_key("/unisched-bench/status/", pick(random)), status, error)) {
          ++puts;
        }
      }
      std::lock_guard<std::mutex> lock(mutex);
      if (!error.empty() && result.problem.empty()) {
        result.problem = error;
      }
    });
  }
  for (std::thread& writer : writers) {
    writer.join();
  }
  result.status_puts = puts;
  result.status_puts_per_s =
      static_cast<double>(puts) / std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

EtcdResult etcd_side(const EtcdParameters& parameters) {
  EtcdResult result;
  EtcdServer server(parameters.in_memory);
  const std::string endpoint = server.wait_until_ready();
  if (endpoint.empty()) {
    result.problem = server.problem();
    return result;
  }
  std::vector<std::pair<std::string, std::string>> nodes;
  for (int node = 0; node < parameters.nodes; ++node) {
    nodes.emplace_back(node_key("/unisched-bench/nodes/", node), "free");
  }
  if (!EtcdKv(endpoint).put_all(nodes, result.problem)) {
    return result;
  }
  run_committers(endpoint, parameters, result);
  if (result.problem.empty()) {
    run_status_writers(endpoint, parameters, result);
  }
  return result;
}

}  // namespace unisched::bench
