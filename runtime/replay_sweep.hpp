// A sweep of direct replays: several policies over several seeds of one trace and split, run
// on worker threads, and what they show side by side: per policy the allocation and the
// fragmentation at one arrived load (mean, least and most over the seeds), and against a
// baseline policy seed by seed (the mean difference, the seeds won, tied and lost).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "runtime/replay.hpp"

namespace unisched::runtime {

struct SweepOptions {
  ReplayOptions base;  ///< the trace and its split; its policy and seed are the sweep's
  std::vector<std::string> policies;
  std::vector<uint64_t> seeds;
  int jobs = 1;  ///< replays run at once
};

struct SweepRun {
  std::string policy;
  uint64_t seed = 0;
  ReplayReport report;
};

/// Every policy with every seed, in that order; `progress` is called after each run with (runs
/// done, runs in all), from the thread that finished it, one call at a time.
std::vector<SweepRun> sweep(const SweepOptions& options,
                            const std::function<void(size_t, size_t)>& progress);

struct Spread {
  double mean = 0;
  double least = 0;
  double most = 0;
};

struct PolicySummary {
  std::string policy;
  size_t runs = 0;  ///< seeds that reached the load without a problem
  Spread allocation;
  Spread fragmentation;
  /// Against the baseline, seed by seed: this policy's allocation minus the baseline's.
  double paired_mean_difference = 0;
  size_t wins = 0;
  size_t ties = 0;
  size_t losses = 0;
};

/// Per policy, in the sweep's order, at arrived load `load` (% of the GPU capacity); each
/// paired with `baseline` (a policy of the sweep) on the seeds both reached the load on.
std::vector<PolicySummary> summarize(const std::vector<SweepRun>& runs, int load,
                                     const std::string& baseline);

}  // namespace unisched::runtime
