#include "tools/bench/scenarios.hpp"

#include <cstdio>

#include "tools/bench/etcd_scenario.hpp"
#include "tools/bench/fleet_memory.hpp"
#include "tools/bench/full_sync.hpp"
#include "tools/bench/ingest.hpp"
#include "tools/bench/ingest_grpc.hpp"
#include "tools/bench/json_line.hpp"
#include "tools/bench/kube_ingest.hpp"
#include "tools/bench/resync.hpp"
#include "tools/bench/sample_quality.hpp"
#include "tools/bench/scale.hpp"
#include "tools/bench/schedule.hpp"

namespace unisched::bench {
namespace {

StreamParameters stream_parameters(const Flags& flags, StreamParameters defaults) {
  defaults.clusters = flags.number("clusters", defaults.clusters);
  defaults.nodes = flags.number("nodes", defaults.nodes);
  defaults.deltas_per_update = flags.number("deltas", defaults.deltas_per_update);
  defaults.updates = flags.number("updates", defaults.updates);
  defaults.window = flags.number("window", defaults.window);
  defaults.gpus = flags.number("gpus", defaults.gpus);
  defaults.rate = flags.number("rate", defaults.rate);
  defaults.whole_states = flags.text("node-deltas", "usage") == "whole";
  return defaults;
}

JsonLine& with_stream(JsonLine& line, const StreamParameters& parameters) {
  return line.integer("clusters", parameters.clusters)
      .integer("nodes", parameters.nodes)
      .integer("deltas_per_update", parameters.deltas_per_update)
      .integer("updates", parameters.updates)
      .integer("window", parameters.window)
      .text("node_deltas", parameters.whole_states ? "whole" : "usage");
}

JsonLine& with_ingest(JsonLine& line, const IngestResult& result) {
  return line.integer("deltas", static_cast<int64_t>(result.deltas))
      .number("seconds", result.seconds)
      .number("deltas_per_s", result.deltas_per_s)
      .number("p50_ms", result.ack_p50_ms)
      .number("p99_ms", result.ack_p99_ms);
}

bool report_problem(const std::string& problem) {
  if (!problem.empty()) {
    std::fprintf(stderr, "problem: %s\n", problem.c_str());
  }
  return problem.empty();
}

bool run_ingest(const Flags& flags, const std::string&) {
  const StreamParameters parameters =
      stream_parameters(flags, {4, 1000, 100, 1000, 1, 100, 8, false});
  std::fprintf(stderr, "ingest in process: %d clusters x %d nodes, %d updates of %d changes\n",
               parameters.clusters, parameters.nodes, parameters.updates,
               parameters.deltas_per_update);
  const IngestResult result = ingest_in_process(parameters);
  JsonLine line("ingest");
  with_ingest(with_stream(line, parameters), result)
      .integer("rate", parameters.rate)
      .number("visible_p50_ms", result.visible_p50_ms)
      .number("visible_p99_ms", result.visible_p99_ms)
      .flag("ok", result.problem.empty())
      .print();
  std::fprintf(stderr,
               "  %.0f node deltas/s; push to Ack p50 %.3f ms p99 %.3f ms; at %d updates/s per "
               "cluster, push to visible in a scheduler's copy p50 %.3f ms p99 %.3f ms\n",
               result.deltas_per_s, result.ack_p50_ms, result.ack_p99_ms, parameters.rate,
               result.visible_p50_ms, result.visible_p99_ms);
  return report_problem(result.problem);
}

bool run_ingest_remote(const Flags& flags, const std::string& self_command) {
  const std::string transport = flags.text("transport", "both");
  bool clean = true;
  for (const std::string& which : {std::string("caf"), std::string("grpc")}) {
    if (transport != "both" && transport != which) {
      continue;
    }
    const StreamParameters parameters =
        stream_parameters(flags, {4, 1000, 100, which == "caf" ? 1000 : 200, 1, 0, 8, false});
    std::fprintf(
        stderr,
        "ingest-remote over %s on loopback: %d clusters x %d nodes, %d updates of %d changes\n",
        which.c_str(), parameters.clusters, parameters.nodes, parameters.updates,
        parameters.deltas_per_update);
    const IngestResult result =
        which == "caf" ? ingest_over_caf(parameters, self_command) : ingest_over_grpc(parameters);
    JsonLine line("ingest-remote");
    line.text("transport", which);
    with_ingest(with_stream(line, parameters), result).flag("ok", result.problem.empty()).print();
    std::fprintf(stderr, "  %.0f node deltas/s; push to Ack p50 %.3f ms p99 %.3f ms\n",
                 result.deltas_per_s, result.ack_p50_ms, result.ack_p99_ms);
    clean = report_problem(result.problem) && clean;
  }
  return clean;
}

bool run_resync(const Flags& flags, const std::string&) {
  // --nodes sizes the snapshot; without it, the sizes issue 7 names.
  const std::vector<int> sizes = flags.given("nodes") ? std::vector<int>{flags.number("nodes", 0)}
                                                      : std::vector<int>{5'000, 50'000};
  for (const int nodes : sizes) {
    const auto result = resync(nodes, nodes > 10'000 ? 5 : 21);
    JsonLine("resync")
        .integer("nodes", nodes)
        .number("resync_ms", result.resync_ms)
        .number("decode_ms", result.decode_ms)
        .number("bytes_per_node", result.bytes_per_node)
        .flag("ok", result.problem.empty())
        .print();
    std::fprintf(stderr, "resync of %d nodes: %.2f ms (%.2f ms decoding), %.0f bytes/node\n", nodes,
                 result.resync_ms, result.decode_ms, result.bytes_per_node);
    if (!report_problem(result.problem)) {
      return false;
    }
  }
  return true;
}

const char* mode_name(actors::CommitMode mode) {
  return mode == actors::CommitMode::ClusterRevision ? "cluster" : "node";
}

ScheduleParameters schedule_parameters(const Flags& flags, ScheduleParameters defaults) {
  defaults.clusters = flags.number("clusters", defaults.clusters);
  defaults.nodes = flags.number("nodes", defaults.nodes);
  defaults.gpus = flags.number("gpus", defaults.gpus);
  defaults.window = flags.number("window", defaults.window);
  defaults.in_flight = flags.number("in-flight", defaults.in_flight);
  defaults.seconds = flags.number("seconds", defaults.seconds);
  defaults.policy = flags.text("policy", defaults.policy);
  defaults.node_sample = flags.number("sample", defaults.node_sample);
  return defaults;
}

JsonLine& with_schedule(JsonLine& line, const ScheduleParameters& parameters,
                        const ScheduleResult& result) {
  return line.integer("schedulers", parameters.schedulers)
      .text("mode", mode_name(parameters.mode))
      .text("policy", parameters.policy)
      .integer("node_sample", parameters.effective_node_sample())
      .text("sample_rule", parameters.node_sample < 0 ? "adaptive" : "given")
      .integer("window", parameters.window)
      .integer("in_flight", parameters.in_flight)
      .integer("decisions", static_cast<int64_t>(result.decisions))
      .integer("placed", static_cast<int64_t>(result.placed))
      .number("seconds", result.seconds)
      .number("decisions_per_s", result.decisions_per_s)
      .number("p50_ms", result.p50_ms)
      .number("p99_ms", result.p99_ms)
      .integer("conflicts", static_cast<int64_t>(result.conflicts))
      .number("conflict_rate", result.conflict_rate)
      .number("retry_rate", result.retry_rate);
}

void summarize(const ScheduleParameters& parameters, const ScheduleResult& result) {
  std::fprintf(
      stderr,
      "  %d scheduler(s), %s revisions, %d in flight, %s: %.0f decisions/s, p50 %.3f ms "
      "p99 %.3f ms, conflict rate %.2f%%, retry rate %.2f%%\n",
      parameters.schedulers, mode_name(parameters.mode), parameters.in_flight,
      parameters.effective_node_sample() > 0
          ? ("best of " + std::to_string(parameters.effective_node_sample()) + " sampled nodes")
                .c_str()
          : "every node scored",
      result.decisions_per_s, result.p50_ms, result.p99_ms, 100 * result.conflict_rate,
      100 * result.retry_rate);
}

bool run_one_schedule(const Flags& flags, actors::CommitMode mode, int schedulers,
                      int node_sample) {
  ScheduleParameters parameters = schedule_parameters(flags, {});
  parameters.mode = mode;
  parameters.schedulers = schedulers;
  parameters.node_sample = node_sample;
  if (mode == actors::CommitMode::ClusterRevision) {
    parameters.in_flight = 1;  // every commit changes the cluster's revision
  }
  std::fprintf(stderr, "schedule: %d clusters x %d nodes\n", parameters.clusters, parameters.nodes);
  const ScheduleResult result = schedule(parameters);
  JsonLine line("schedule");
  line.integer("clusters", parameters.clusters).integer("nodes", parameters.nodes);
  with_schedule(line, parameters, result).flag("ok", result.problem.empty()).print();
  summarize(parameters, result);
  return report_problem(result.problem);
}

bool run_schedule(const Flags& flags, const std::string&) {
  const std::string modes = flags.text("mode", "both");
  const std::vector<int> scheduler_counts = flags.given("schedulers")
                                                ? std::vector<int>{flags.number("schedulers", 1)}
                                                : std::vector<int>{1, 2};
  const int node_sample = flags.number("sample", ScheduleParameters{}.node_sample);
  bool clean = true;
  for (const auto mode : {actors::CommitMode::ClusterRevision, actors::CommitMode::NodeRevisions}) {
    if (modes != "both" && modes != mode_name(mode)) {
      continue;
    }
    for (const int schedulers : scheduler_counts) {
      clean = run_one_schedule(flags, mode, schedulers, node_sample) && clean;
    }
  }
  if (!flags.given("sample") && !flags.given("schedulers") && !flags.given("mode")) {
    // The baseline the sample is measured against, in the same run: every node scored.
    clean = run_one_schedule(flags, actors::CommitMode::NodeRevisions, 1, 0) && clean;
  }
  return clean;
}

/// Decisions per second with and without a quota ledger in the commit round: `pairs` pairs of
/// runs, each on clusters of its own, the order swapped from pair to pair (a run's clusters fill
/// up and its process ages, so the second of a pair would be slower whatever it measures); the
/// last line gives the ratio of the means.
bool run_quota(const Flags& flags, const std::string&) {
  ScheduleParameters parameters = schedule_parameters(flags, {});
  parameters.mode = actors::CommitMode::NodeRevisions;
  parameters.schedulers = flags.number("schedulers", 2);
  const int pairs = flags.number("pairs", 2);
  std::fprintf(stderr, "quota: %d clusters x %d nodes, %d schedulers, %d pairs of runs\n",
               parameters.clusters, parameters.nodes, parameters.schedulers, pairs);
  double sum[2] = {0, 0};
  bool clean = true;
  for (int pair = 0; pair < pairs; ++pair) {
    for (const bool quotas : {pair % 2 == 1, pair % 2 == 0}) {
      parameters.quotas = quotas;
      const ScheduleResult result = schedule(parameters);
      JsonLine line("quota");
      line.integer("clusters", parameters.clusters).integer("nodes", parameters.nodes);
      line.flag("quotas", quotas);
      with_schedule(line, parameters, result).flag("ok", result.problem.empty()).print();
      std::fprintf(stderr, "  quotas %s:", quotas ? "on " : "off");
      summarize(parameters, result);
      sum[quotas ? 1 : 0] += result.decisions_per_s;
      clean = report_problem(result.problem) && clean;
    }
  }
  const double ratio = sum[0] > 0 ? sum[1] / sum[0] : 0;
  JsonLine("quota-ratio").number("decisions_per_s_on_over_off", ratio).flag("ok", clean).print();
  std::fprintf(stderr, "  with quotas: %.1f%% of the decisions/s without (means of %d runs)\n",
               100 * ratio, pairs);
  return clean;
}

bool run_scale(const Flags& flags, const std::string&) {
  const StreamParameters stream = stream_parameters(flags, {100, 5000, 500, 20, 1, 0, 8, false});
  ScheduleParameters schedule = schedule_parameters(flags, {});
  schedule.clusters = stream.clusters;
  schedule.nodes = stream.nodes;
  schedule.mode = actors::CommitMode::NodeRevisions;
  std::fprintf(stderr, "scale: %d clusters x %d nodes\n", stream.clusters, stream.nodes);
  const ScaleResult result = scale(stream, schedule);
  const double nodes = static_cast<double>(stream.clusters) * stream.nodes;
  JsonLine line("scale");
  with_stream(line, stream)
      .number("listing_s", result.listing_seconds)
      .number("bytes_per_node", result.views_bytes / nodes)
      .number("bytes_per_node_with_scheduler", result.with_scheduler_bytes / nodes)
      .number("heap_bytes_per_node", result.views_heap_bytes / nodes)
      .number("heap_bytes_per_node_with_scheduler", result.with_scheduler_heap_bytes / nodes);
  line.number("deltas_per_s", result.ingest.deltas_per_s)
      .number("ingest_p99_ms", result.ingest.ack_p99_ms)
      .number("resync_p50_ms", result.resync_p50_ms)
      .number("decisions_per_s", result.schedule.decisions_per_s)
      .number("placed", static_cast<double>(result.schedule.placed))
      .number("p50_ms", result.schedule.p50_ms)
      .number("p99_ms", result.schedule.p99_ms)
      .number("two_schedulers_decisions_per_s", result.racing.decisions_per_s)
      .number("two_schedulers_placed", static_cast<double>(result.racing.placed))
      .number("two_schedulers_p99_ms", result.racing.p99_ms)
      .number("two_schedulers_conflict_rate", result.racing.conflict_rate)
      .flag("ok", result.problem.empty())
      .print();
  std::fprintf(stderr,
               "  listed in %.1f s; per node %.0f bytes resident (%.0f of heap data) in the "
               "ClusterActors, %.0f (%.0f) with one scheduler's copies; %.0f node deltas/s; "
               "resync of one cluster %.1f ms; %.0f decisions/s (p99 %.3f ms); two schedulers "
               "%.0f decisions/s, %.2f%% conflicts\n",
               result.listing_seconds, result.views_bytes / nodes, result.views_heap_bytes / nodes,
               result.with_scheduler_bytes / nodes, result.with_scheduler_heap_bytes / nodes,
               result.ingest.deltas_per_s, result.resync_p50_ms, result.schedule.decisions_per_s,
               result.schedule.p99_ms, result.racing.decisions_per_s,
               100 * result.racing.conflict_rate);
  return report_problem(result.problem);
}

bool run_full_sync_baseline(const Flags& flags, const std::string&) {
  const StreamParameters parameters = stream_parameters(flags, {4, 5000, 100, 50, 1, 0, 8, false});
  std::fprintf(
      stderr, "full-sync-baseline: %d clusters x %d nodes, %d intervals of %d changes each\n",
      parameters.clusters, parameters.nodes, parameters.updates, parameters.deltas_per_update);
  const FullSyncResult result = full_sync_baseline(parameters);
  const double intervals = static_cast<double>(parameters.updates) * parameters.clusters;
  const auto per_interval = [&](double total) { return intervals > 0 ? total / intervals : 0; };
  const double incremental_bytes = per_interval(static_cast<double>(result.incremental.bytes));
  const double full_bytes = per_interval(static_cast<double>(result.full_sync.bytes));
  const double incremental_cpu_ms = per_interval(result.incremental.cpu_seconds * 1000);
  const double full_cpu_ms = per_interval(result.full_sync.cpu_seconds * 1000);
  JsonLine line("full-sync-baseline");
  with_stream(line, parameters)
      .number("incremental_bytes_per_interval", incremental_bytes)
      .number("full_sync_bytes_per_interval", full_bytes)
      .number("bytes_ratio", incremental_bytes > 0 ? full_bytes / incremental_bytes : 0)
      .number("incremental_cpu_ms_per_interval", incremental_cpu_ms)
      .number("full_sync_cpu_ms_per_interval", full_cpu_ms)
      .number("cpu_ratio", incremental_cpu_ms > 0 ? full_cpu_ms / incremental_cpu_ms : 0)
      .flag("ok", result.incremental.problem.empty() && result.full_sync.problem.empty())
      .print();
  std::fprintf(stderr,
               "  per cluster and interval: incremental %.0f bytes, %.3f ms CPU; full sync %.0f "
               "bytes, %.3f ms CPU (x%.1f bytes, x%.1f CPU)\n",
               incremental_bytes, incremental_cpu_ms, full_bytes, full_cpu_ms,
               incremental_bytes > 0 ? full_bytes / incremental_bytes : 0,
               incremental_cpu_ms > 0 ? full_cpu_ms / incremental_cpu_ms : 0);
  return report_problem(result.incremental.problem) && report_problem(result.full_sync.problem);
}

bool run_kube_ingest(const Flags& flags, const std::string&) {
  const int nodes = flags.number("nodes", 5000);
  const int events = flags.number("updates", 5000);
  std::fprintf(stderr,
               "kube-ingest: list %d nodes from the test API server, then %d watch events\n", nodes,
               events);
  const KubeIngestResult result = kube_ingest(nodes, events);
  JsonLine("kube-ingest")
      .integer("nodes", nodes)
      .integer("events", events)
      .integer("pages", static_cast<int64_t>(result.pages))
      .number("list_s", result.list_seconds)
      .number("list_nodes_per_s", result.list_nodes_per_s)
      .number("parse_nodes_per_s", result.parse_nodes_per_s)
      .number("watch_s", result.watch_seconds)
      .number("watch_events_per_s", result.watch_events_per_s)
      .flag("ok", result.problem.empty())
      .print();
  std::fprintf(
      stderr,
      "  listed %d nodes in %.2f s (%.0f nodes/s, %llu pages; parsing alone %.0f nodes/s); "
      "%d watch events in %.2f s (%.0f events/s)\n",
      nodes, result.list_seconds, result.list_nodes_per_s,
      static_cast<unsigned long long>(result.pages), result.parse_nodes_per_s, events,
      result.watch_seconds, result.watch_events_per_s);
  return report_problem(result.problem);
}

}  // namespace

const std::vector<Scenario>& scenarios() {
  static const std::vector<Scenario> all = {
      {"ingest", "metadata deltas from agents into cluster actors, in one process", run_ingest},
      {"ingest-remote", "the same over a transport: CAF remote messaging or gRPC",
       run_ingest_remote},
      {"resync", "a cluster's full resync at 5,000 and 50,000 nodes", run_resync},
      {"schedule", "decisions per second and conflicts, schedulers against cluster actors",
       run_schedule},
      {"sample-quality", "placement quality of sampled decisions against full scans",
       run_sample_quality},
      {"quota", "decisions with the quota ledger in the commit round", run_quota},
      {"scale", "listing, memory, ingest and decisions at 100 clusters x 5,000 nodes", run_scale},
      {"fleet-memory", "resident memory of the centre per cluster and node", run_fleet_memory},
      {"full-sync-baseline", "bytes and CPU of deltas against a full sync per interval",
       run_full_sync_baseline},
      {"kube-ingest", "listing and watching a Kubernetes API server's nodes", run_kube_ingest},
      {"etcd", "etcd's own puts and transactions beside unisched's commits", run_etcd},
  };
  return all;
}

}  // namespace unisched::bench
