#include "runtime/replay_sweep.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

namespace unisched::runtime {
namespace {

Spread spread_of(const std::vector<double>& values) {
  Spread out;
  if (values.empty()) {
    return out;
  }
  double sum = 0;
  for (const double value : values) {
    sum += value;
  }
  out.mean = sum / static_cast<double>(values.size());
  out.least = *std::min_element(values.begin(), values.end());
  out.most = *std::max_element(values.begin(), values.end());
  return out;
}

/// The run's allocation at `load`, when it got there without a problem.
std::optional<double> allocation_at(const SweepRun& run, int load) {
  const auto found = run.report.allocation.find(load);
  if (!run.report.problems.empty() || found == run.report.allocation.end()) {
    return std::nullopt;
  }
  return found->second;
}

}  // namespace

std::vector<SweepRun> sweep(const SweepOptions& options,
                            const std::function<void(size_t, size_t)>& progress) {
  std::vector<SweepRun> runs;
  for (const std::string& policy : options.policies) {
    for (const uint64_t seed : options.seeds) {
      runs.push_back({policy, seed, {}});
    }
  }
  std::atomic<size_t> next{0};
  size_t done = 0;
  std::mutex progress_mutex;
  const auto work = [&] {
    for (size_t i = next++; i < runs.size(); i = next++) {
      ReplayOptions one = options.base;
      one.policy = runs[i].policy;
      one.seed = runs[i].seed;
      one.direct = true;  // the actors' replay runs its own threads: one at a time only
      runs[i].report = replay(one, [](size_t, size_t) {});
      const std::lock_guard<std::mutex> lock(progress_mutex);
      progress(++done, runs.size());
    }
  };
  std::vector<std::thread> workers;
  const size_t jobs = static_cast<size_t>(std::max(1, options.jobs));
  for (size_t j = 1; j < std::min(jobs, runs.size()); ++j) {
    workers.emplace_back(work);
  }
  work();
  for (std::thread& worker : workers) {
    worker.join();
  }
  return runs;
}

std::vector<PolicySummary> summarize(const std::vector<SweepRun>& runs, int load,
                                     const std::string& baseline) {
  std::map<uint64_t, double> baseline_by_seed;
  for (const SweepRun& run : runs) {
    if (const auto allocation = allocation_at(run, load); allocation && run.policy == baseline) {
      baseline_by_seed[run.seed] = *allocation;
    }
  }
  std::vector<PolicySummary> out;
  std::map<std::string, size_t> index;
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> values;
  std::map<std::string, std::vector<double>> differences;
  for (const SweepRun& run : runs) {
    if (index.emplace(run.policy, out.size()).second) {
      out.push_back({});
      out.back().policy = run.policy;
    }
    const auto allocation = allocation_at(run, load);
    if (!allocation) {
      continue;
    }
    PolicySummary& summary = out[index.at(run.policy)];
    ++summary.runs;
    values[run.policy].first.push_back(*allocation);
    values[run.policy].second.push_back(run.report.fragmentation.at(load));
    if (const auto paired = baseline_by_seed.find(run.seed); paired != baseline_by_seed.end()) {
      const double difference = *allocation - paired->second;
      differences[run.policy].push_back(difference);
      // The report's figures are means of sums; a last-bit difference is a tie.
      if (std::abs(difference) < 1e-9) {
        ++summary.ties;
      } else if (difference > 0) {
        ++summary.wins;
      } else {
        ++summary.losses;
      }
    }
  }
  for (PolicySummary& summary : out) {
    summary.allocation = spread_of(values[summary.policy].first);
    summary.fragmentation = spread_of(values[summary.policy].second);
    summary.paired_mean_difference = spread_of(differences[summary.policy]).mean;
  }
  return out;
}

}  // namespace unisched::runtime
