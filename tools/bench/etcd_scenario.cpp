#include "tools/bench/etcd_scenario.hpp"

#include <algorithm>
#include <cstdio>

#include "tools/bench/etcd_side.hpp"
#include "tools/bench/fixtures.hpp"
#include "tools/bench/ingest.hpp"
#include "tools/bench/json_line.hpp"
#include "tools/bench/schedule.hpp"

namespace unisched::bench {
namespace {

/// Past this share of the pod slots taken, sampled decisions start to miss room.
constexpr double kFullEnough = 0.9;
/// The longest run of unisched's committers, however long etcd's run.
constexpr int kCommitSeconds = 2;

/// unisched doing the same work in this process.
struct UnischedSide {
  ScheduleResult commits;  ///< racing schedulers, compare-and-set on node revisions
  double commits_per_s = 0;
  double room_used = 0;  ///< the share of the cluster's pod slots the placements took
  IngestResult one;      ///< one node change per update
  IngestResult batched;  ///< up to 100 per update
  std::string problem;
};

/// As many SchedulerActors as etcd has committers, one request outstanding each, deciding and
/// committing on one cluster of as many nodes by compare-and-set on node revisions (the
/// decision is included: unisched's side does more per commit). Then as many agents as etcd
/// has writers stream node changes, each waiting for every Ack. The requests are small and
/// cpu-only: with a device each, 1,000 nodes' 5,333 free devices were taken within the first
/// second, and the rate measured was the cluster's room over the run, not its commits.
UnischedSide unisched_side(const EtcdParameters& parameters) {
  UnischedSide side;
  ScheduleParameters scheduling;
  scheduling.clusters = 1;
  scheduling.nodes = parameters.nodes;
  scheduling.schedulers = parameters.committers;
  // At about 20,000 commits/s on 2 cores, 5 s would fill 1,000 nodes' 110,000 pod slots.
  scheduling.seconds = std::min(parameters.seconds, kCommitSeconds);
  scheduling.mode = actors::CommitMode::NodeRevisions;
  scheduling.node_sample = parameters.node_sample;
  scheduling.device_requests = false;
  side.commits = schedule(scheduling);
  side.room_used = static_cast<double>(side.commits.placed) /
                   (static_cast<double>(parameters.nodes) * kSyntheticPodSlots);
  side.commits_per_s = side.commits.seconds > 0
                           ? static_cast<double>(side.commits.commits) / side.commits.seconds
                           : 0;
  StreamParameters stream;  // rate: the pace of the visibility measure that follows
  stream.clusters = parameters.writers;
  stream.nodes = std::max(1, parameters.nodes / parameters.writers);
  stream.deltas_per_update = 1;
  stream.updates = 2000;
  stream.rate = 100;
  side.one = ingest_in_process(stream);
  stream.deltas_per_update = std::min(100, stream.nodes);
  stream.updates = 200;
  side.batched = ingest_in_process(stream);
  for (const std::string* problem :
       {&side.commits.problem, &side.one.problem, &side.batched.problem}) {
    if (side.problem.empty()) {
      side.problem = *problem;
    }
  }
  return side;
}

void report(const EtcdParameters& parameters, const EtcdResult& etcd, const UnischedSide& ours) {
  JsonLine("etcd")
      .text("storage", parameters.in_memory ? "tmpfs" : "disk")
      .integer("nodes", parameters.nodes)
      .integer("committers", parameters.committers)
      .integer("node_sample", parameters.node_sample)
      .integer("writers", parameters.writers)
      .integer("etcd_commits", static_cast<int64_t>(etcd.commits))
      .number("etcd_commits_per_s", etcd.commits_per_s)
      .number("etcd_conflict_rate", etcd.conflict_rate)
      .number("etcd_commit_p50_ms", etcd.commit_p50_ms)
      .number("etcd_commit_p99_ms", etcd.commit_p99_ms)
      .number("etcd_status_puts_per_s", etcd.status_puts_per_s)
      .integer("unisched_decisions", static_cast<int64_t>(ours.commits.decisions))
      .integer("unisched_placed", static_cast<int64_t>(ours.commits.placed))
      .number("unisched_room_used", ours.room_used)
      .integer("unisched_commits", static_cast<int64_t>(ours.commits.commits))
      .number("unisched_commits_per_s", ours.commits_per_s)
      .number("unisched_conflict_rate", ours.commits.conflict_rate)
      .number("unisched_decision_p50_ms", ours.commits.p50_ms)
      .number("unisched_decision_p99_ms", ours.commits.p99_ms)
      .number("unisched_deltas_per_s_one_per_update", ours.one.deltas_per_s)
      .number("unisched_deltas_per_s_batched", ours.batched.deltas_per_s)
      .number("commit_ratio", ours.commits_per_s / etcd.commits_per_s)
      .number("ingest_ratio_one_per_update", ours.one.deltas_per_s / etcd.status_puts_per_s)
      .number("ingest_ratio_batched", ours.batched.deltas_per_s / etcd.status_puts_per_s)
      .flag("ok", etcd.problem.empty() && ours.problem.empty())
      .print();
  std::fprintf(stderr,
               "  etcd: %.0f compare-and-set commits/s (conflict rate %.2f%%, p50 %.2f ms, p99 "
               "%.2f ms), %.0f status puts/s\n  unisched: %.0f commits/s (%.1fx, conflict rate "
               "%.2f%%), ingest %.0f node changes/s one per update (%.1fx), %.0f batched "
               "(%.1fx)\n",
               etcd.commits_per_s, 100 * etcd.conflict_rate, etcd.commit_p50_ms, etcd.commit_p99_ms,
               etcd.status_puts_per_s, ours.commits_per_s, ours.commits_per_s / etcd.commits_per_s,
               100 * ours.commits.conflict_rate, ours.one.deltas_per_s,
               ours.one.deltas_per_s / etcd.status_puts_per_s, ours.batched.deltas_per_s,
               ours.batched.deltas_per_s / etcd.status_puts_per_s);
  if (ours.room_used > kFullEnough) {
    std::fprintf(stderr,
                 "  warning: unisched's placements took %.0f%% of its cluster's pod slots: near "
                 "the end, its commit rate is bound by the room left; give it more --nodes\n",
                 100 * ours.room_used);
  }
  for (const std::string& problem : {etcd.problem, ours.problem}) {
    if (!problem.empty()) {
      std::fprintf(stderr, "problem: %s\n", problem.c_str());
    }
  }
}

}  // namespace

bool run_etcd(const Flags& flags, const std::string&) {
  EtcdParameters parameters;
  parameters.nodes = flags.number("nodes", parameters.nodes);
  parameters.committers = flags.number("committers", parameters.committers);
  parameters.writers = flags.number("writers", parameters.writers);
  parameters.seconds = flags.number("seconds", parameters.seconds);
  parameters.node_sample = flags.number("sample", parameters.node_sample);
  const std::string storage = flags.text("storage", "both");
  std::fprintf(
      stderr, "unisched: 1 cluster x %d nodes, %d schedulers (node sample %s), %d agents\n",
      parameters.nodes, parameters.committers,
      parameters.node_sample < 0 ? "adaptive" : std::to_string(parameters.node_sample).c_str(),
      parameters.writers);
  const UnischedSide ours = unisched_side(parameters);
  bool clean = ours.problem.empty();
  for (const bool in_memory : {false, true}) {
    if (storage != "both" && storage != (in_memory ? "tmpfs" : "disk")) {
      continue;
    }
    parameters.in_memory = in_memory;
    std::fprintf(stderr, "etcd on %s: %d node keys, %d committers, %d status writers\n",
                 in_memory ? "tmpfs" : "disk", parameters.nodes, parameters.committers,
                 parameters.writers);
    const EtcdResult etcd = etcd_side(parameters);
    report(parameters, etcd, ours);
    clean = clean && etcd.problem.empty();
  }
  return clean;
}

}  // namespace unisched::bench
