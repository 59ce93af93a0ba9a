// Bench scenario `schedule`: SchedulerActors decide and commit by compare-and-set on real
// ClusterActors (in one process), fed by bench agents; bench clients keep requests coming.
#pragma once

#include <caf/fwd.hpp>

#include <cstdint>
#include <string>

#include "cores/cluster_core.hpp"
#include "tools/bench/bench_actors.hpp"

namespace unisched::bench {

struct ScheduleParameters {
  int clusters = 100;
  int nodes = 1000;  ///< per cluster
  int gpus = 8;      ///< per node
  int schedulers = 1;
  int window = 1;     ///< requests outstanding per scheduler
  int in_flight = 1;  ///< decisions whose commits a scheduler has out at once (node mode)
  int seconds = 5;    ///< of submitting, per run
  std::string policy = "balanced";
  /// The policy's node sample; 0 scores every node; -1 the adaptive rule (as `unisched run`
  /// without --node-sample).
  int node_sample = -1;
  /// The nodes scored per replica: node_sample, or what the adaptive rule gives this fleet.
  int effective_node_sample() const;
  actors::CommitMode mode = actors::CommitMode::ClusterRevision;
  /// Requests carry a queue whose quota the schedulers take first in every commit round (a
  /// budget too large to bind: what is measured is the cost of the ledger, not its waits).
  bool quotas = false;
  /// Each request asks for one device; false: a small cpu-only request, of which a node holds
  /// as many as its pod slots (110), so that a small fleet does not fill up within the run.
  bool device_requests = true;
};

struct ScheduleResult {
  uint64_t decisions = 0;
  uint64_t placed = 0;
  double seconds = 0;
  double decisions_per_s = 0;
  double p50_ms = 0;  ///< submission to decision
  double p99_ms = 0;
  uint64_t commits = 0;        ///< accepted
  uint64_t conflicts = 0;      ///< commits refused by compare-and-set
  uint64_t retries = 0;        ///< decisions made again after a conflict
  double conflict_rate = 0;    ///< conflicts / commit attempts
  double retry_rate = 0;       ///< retries / decisions
  int64_t resident_bytes = 0;  ///< of the process once every scheduler held its copies
  int64_t heap_bytes = 0;      ///< heap in use at the same moment
  std::string problem;
};

/// Runs `schedulers` SchedulerActors over the clusters `centre` already holds (bench-0 ...).
ScheduleResult run_schedulers(caf::actor_system& system, const CentreActor& centre,
                              const ScheduleParameters& parameters);

/// Builds the clusters, then run_schedulers.
ScheduleResult schedule(const ScheduleParameters& parameters);

}  // namespace unisched::bench
