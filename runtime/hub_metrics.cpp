#include "runtime/hub_metrics.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <tuple>

#include "messages/latency_buckets.hpp"
#include "messages/undecided_reasons.hpp"
#include "runtime/grpc_call_stats.hpp"
#include "runtime/journal.hpp"
#include "runtime/prometheus_text.hpp"

namespace unisched::runtime {
namespace {

using Labels = PrometheusText::Labels;
using Cluster = v1::ClusterSummary;
using Scheduler = v1::SchedulerSummary;

/// One family with a sample per cluster, `value` reading it from the summary.
void per_cluster(PrometheusText& out, const v1::ClusterList& list, const char* name,
                 const char* type, const char* help,
                 const std::function<double(const Cluster&)>& value) {
  out.family(name, type, help);
  for (const Cluster& cluster : list.clusters()) {
    out.sample(name, {{"cluster", cluster.cluster_id()}}, value(cluster));
  }
}

void cluster_metrics(PrometheusText& out, const v1::ClusterList& list) {
  const auto counter = [&](const char* name, const char* help, auto value) {
    per_cluster(out, list, name, "counter", help, value);
  };
  const auto gauge = [&](const char* name, const char* help, auto value) {
    per_cluster(out, list, name, "gauge", help, value);
  };
  counter("unisched_cluster_updates_total", "View updates applied from the cluster's agent.",
          [](const Cluster& c) { return c.updates_applied(); });
  counter("unisched_cluster_node_deltas_total", "Node changes applied from those updates.",
          [](const Cluster& c) { return c.deltas_applied(); });
  counter("unisched_cluster_duplicate_updates_total", "Updates already applied (resent), dropped.",
          [](const Cluster& c) { return c.duplicates(); });
  counter("unisched_cluster_version_gaps_total",
          "Updates that skipped versions, each answered by a resync.",
          [](const Cluster& c) { return c.gaps(); });
  counter("unisched_cluster_resyncs_total", "Full snapshots applied.",
          [](const Cluster& c) { return c.resyncs(); });
  counter("unisched_cluster_rejected_updates_total", "Updates refused as invalid.",
          [](const Cluster& c) { return c.rejected(); });
  counter("unisched_cluster_throttled_updates_total",
          "Updates refused over the cluster's update rate.",
          [](const Cluster& c) { return c.throttled(); });
  counter("unisched_cluster_commits_total", "Placements committed on the cluster's view.",
          [](const Cluster& c) { return c.commits(); });
  counter("unisched_cluster_commit_conflicts_total",
          "Commits refused because a node changed since the decision.",
          [](const Cluster& c) { return c.conflicts(); });
  gauge("unisched_cluster_healthy", "1 while the cluster answers its health probes.",
        [](const Cluster& c) { return c.healthy() ? 1.0 : 0.0; });
  gauge("unisched_cluster_staleness_seconds", "Since the view was last confirmed current.",
        [](const Cluster& c) { return static_cast<double>(c.staleness_ms()) / 1000.0; });
  gauge("unisched_cluster_view_version", "The version of the view the centre holds.",
        [](const Cluster& c) { return static_cast<double>(c.version()); });
  gauge("unisched_cluster_nodes", "Nodes in the view.",
        [](const Cluster& c) { return static_cast<double>(c.nodes()); });
  gauge("unisched_cluster_nodes_left_out",
        "Nodes the agent sent whose records are unusable, left out of the view (see the log).",
        [](const Cluster& c) { return static_cast<double>(c.nodes_left_out()); });
  gauge("unisched_cluster_reservations", "Committed placements the cluster has not carried out.",
        [](const Cluster& c) { return static_cast<double>(c.reservations()); });
  gauge("unisched_cluster_cpu_allocatable_cores", "Allocatable CPU of the view's nodes.",
        [](const Cluster& c) { return static_cast<double>(c.allocatable_cpu_milli()) / 1000; });
  gauge("unisched_cluster_cpu_allocated_cores", "CPU allocated on the view's nodes.",
        [](const Cluster& c) { return static_cast<double>(c.allocated_cpu_milli()) / 1000; });
  out.family("unisched_cluster_placements_total", "counter",
             "Placements the cluster carried out (confirmed) or refused.");
  for (const Cluster& c : list.clusters()) {
    out.sample("unisched_cluster_placements_total",
               {{"cluster", c.cluster_id()}, {"outcome", "confirmed"}},
               static_cast<double>(c.placements_confirmed()));
    out.sample("unisched_cluster_placements_total",
               {{"cluster", c.cluster_id()}, {"outcome", "refused"}},
               static_cast<double>(c.placements_refused()));
  }
  for (const auto& [name, help, free] :
       {std::make_tuple("unisched_cluster_devices", "Accelerator devices, by model.", false),
        std::make_tuple("unisched_cluster_free_devices",
                        "Accelerator devices with nothing allocated, by model.", true)}) {
    out.family(name, "gauge", help);
    for (const Cluster& c : list.clusters()) {
      for (const v1::ModelUsage& model : c.models()) {
        out.sample(name, {{"cluster", c.cluster_id()}, {"model", model.model()}},
                   static_cast<double>(free ? model.free_devices() : model.devices()));
      }
    }
  }
}

/// One family with a sample per scheduler, labelled by its index.
void per_scheduler(PrometheusText& out, const std::vector<Scheduler>& schedulers, const char* name,
                   const char* type, const char* help,
                   const std::function<double(const Scheduler&)>& value) {
  out.family(name, type, help);
  for (size_t i = 0; i < schedulers.size(); ++i) {
    out.sample(name, {{"scheduler", std::to_string(i)}}, value(schedulers[i]));
  }
}

void scheduler_metrics(PrometheusText& out, const std::vector<Scheduler>& schedulers) {
  out.family("unisched_scheduler_decisions_total", "counter", "Requests decided, by outcome.");
  for (size_t i = 0; i < schedulers.size(); ++i) {
    const Scheduler& s = schedulers[i];
    const std::string id = std::to_string(i);
    for (const auto& [outcome, count] : {std::make_pair("placed", s.placed()),
                                         std::make_pair("partially_placed", s.partially_placed()),
                                         std::make_pair("unschedulable", s.unschedulable())}) {
      out.sample("unisched_scheduler_decisions_total", {{"scheduler", id}, {"outcome", outcome}},
                 static_cast<double>(count));
    }
  }
  out.family("unisched_scheduler_commits_total", "counter",
             "Commit answers the scheduler had, by outcome.");
  for (size_t i = 0; i < schedulers.size(); ++i) {
    const Scheduler& s = schedulers[i];
    const std::string id = std::to_string(i);
    for (const auto& [outcome, count] :
         {std::make_pair("accepted", s.commits()), std::make_pair("conflict", s.conflicts()),
          std::make_pair("timed_out", s.commits_timed_out())}) {
      out.sample("unisched_scheduler_commits_total", {{"scheduler", id}, {"outcome", outcome}},
                 static_cast<double>(count));
    }
  }
  const auto counter = [&](const char* name, const char* help, auto value) {
    per_scheduler(out, schedulers, name, "counter", help, value);
  };
  const auto gauge = [&](const char* name, const char* help, auto value) {
    per_scheduler(out, schedulers, name, "gauge", help, value);
  };
  counter("unisched_scheduler_retries_total", "Decisions made again after a conflict.",
          [](const Scheduler& s) { return s.retries(); });
  counter("unisched_scheduler_requeued_replicas_total",
          "Replicas a cluster refused after their commit, placed again.",
          [](const Scheduler& s) { return s.requeued(); });
  counter("unisched_scheduler_refused_requests_total", "Requests refused: the queue was full.",
          [](const Scheduler& s) { return s.refused_queue_full(); });
  gauge("unisched_scheduler_queue_length", "Requests waiting to be decided.",
        [](const Scheduler& s) { return static_cast<double>(s.waiting()); });
  gauge("unisched_scheduler_waiting_for_quota", "Requests waiting for their queue's quota.",
        [](const Scheduler& s) { return static_cast<double>(s.waiting_for_quota()); });
  gauge("unisched_scheduler_tracked_requests", "Decided requests with placements not settled.",
        [](const Scheduler& s) { return static_cast<double>(s.tracked()); });
  gauge("unisched_scheduler_oldest_undecided_seconds",
        "Age of the longest-waiting request not decided yet; 0 when none waits.",
        [](const Scheduler& s) { return s.oldest_undecided_seconds(); });
  out.family("unisched_scheduler_undecided_requests", "gauge",
             "Requests not decided yet, by where they wait.");
  for (size_t i = 0; i < schedulers.size(); ++i) {
    for (const char* reason : kUndecidedReasons) {
      const auto& counts = schedulers[i].undecided_by_reason();
      const auto count = counts.find(reason);
      out.sample("unisched_scheduler_undecided_requests",
                 {{"scheduler", std::to_string(i)}, {"reason", reason}},
                 count == counts.end() ? 0.0 : static_cast<double>(count->second));
    }
  }
  out.family("unisched_scheduler_decision_latency_seconds", "histogram",
             "From a request's submission to its decision.");
  const std::vector<double> bounds(kLatencyBoundsSeconds.begin(), kLatencyBoundsSeconds.end());
  for (size_t i = 0; i < schedulers.size(); ++i) {
    const auto& counts = schedulers[i].decision_latency_buckets();
    out.histogram("unisched_scheduler_decision_latency_seconds", {{"scheduler", std::to_string(i)}},
                  {counts.begin(), counts.end()}, bounds,
                  schedulers[i].decision_latency_seconds_sum());
  }
}

void journal_metrics(PrometheusText& out) {
  const JournalStats& stats = journal_stats();
  out.family("unisched_journal_appends_total", "counter", "Records appended to journals.");
  out.sample("unisched_journal_appends_total", {}, static_cast<double>(stats.appends.load()));
  out.family("unisched_journal_appended_bytes_total", "counter", "Bytes appended to journals.");
  out.sample("unisched_journal_appended_bytes_total", {},
             static_cast<double>(stats.appended_bytes.load()));
  out.family("unisched_journal_fsync_duration_seconds", "histogram",
             "How long each journal fsync took.");
  const LatencyCounts syncs = stats.syncs.counts();
  out.histogram("unisched_journal_fsync_duration_seconds", {}, syncs.buckets,
                {kLatencyBoundsSeconds.begin(), kLatencyBoundsSeconds.end()}, syncs.sum_seconds);
}

/// "/package.Service/Method" as its service and method labels.
PrometheusText::Labels method_labels(const std::string& full_name) {
  const size_t slash = full_name.rfind('/');
  const std::string service = slash == std::string::npos ? "" : full_name.substr(1, slash - 1);
  return {{"grpc_service", service}, {"grpc_method", full_name.substr(slash + 1)}};
}

void grpc_metrics(PrometheusText& out) {
  const GrpcCallStats::Counts counts = grpc_call_stats().counts();
  out.family("unisched_grpc_server_started_total", "counter", "gRPC calls started, by method.");
  for (const auto& [method, count] : counts.started) {
    out.sample("unisched_grpc_server_started_total", method_labels(method),
               static_cast<double>(count));
  }
  out.family("unisched_grpc_server_handled_total", "counter",
             "gRPC calls ended, by method and status code.");
  std::map<std::string, uint64_t> ended;
  for (const auto& [method_and_code, count] : counts.handled) {
    Labels labels = method_labels(method_and_code.first);
    labels.emplace_back("grpc_code", method_and_code.second);
    out.sample("unisched_grpc_server_handled_total", labels, static_cast<double>(count));
    ended[method_and_code.first] += count;
  }
  out.family("unisched_grpc_server_in_flight", "gauge",
             "gRPC calls open now (for PushIncrementalUpdates: the agents' open update streams), "
             "by method.");
  for (const auto& [method, count] : counts.started) {
    out.sample("unisched_grpc_server_in_flight", method_labels(method),
               static_cast<double>(count - std::min(count, ended[method])));
  }
}

void sources_missing(PrometheusText& out, int missing) {
  out.family("unisched_metrics_sources_missing", "gauge",
             "Actors that did not answer this scrape in time.");
  out.sample("unisched_metrics_sources_missing", {}, missing);
}

/// One family per agent counter, labelled by its cluster.
void agent_metrics(PrometheusText& out, const v1::AgentSummary& agent) {
  const Labels cluster{{"cluster", agent.cluster_id()}};
  for (const auto& [name, help, value] :
       {std::make_tuple("unisched_agent_observations_total", "Polls of the cluster's adapter.",
                        agent.observations()),
        std::make_tuple("unisched_agent_node_changes_seen_total",
                        "Node changes the adapter reported.", agent.changes_seen()),
        std::make_tuple("unisched_agent_updates_total", "Incremental updates built and sent.",
                        agent.updates_built()),
        std::make_tuple("unisched_agent_node_deltas_total", "Node changes inside those updates.",
                        agent.deltas_sent()),
        std::make_tuple("unisched_agent_coalesced_changes_total",
                        "Changes folded into a later change of the same node.", agent.coalesced()),
        std::make_tuple("unisched_agent_snapshots_total", "Full snapshots served to the centre.",
                        agent.snapshots()),
        std::make_tuple("unisched_agent_relists_total",
                        "Times the adapter read the whole cluster again.", agent.relists()),
        std::make_tuple("unisched_agent_placements_applied_total",
                        "Placements carried out on the cluster.", agent.placements_applied()),
        std::make_tuple("unisched_agent_placements_refused_total",
                        "Placements the cluster refused.", agent.placements_refused())}) {
    out.family(name, "counter", help);
    out.sample(name, cluster, static_cast<double>(value));
  }
  out.family("unisched_agent_pending_placements", "gauge", "Ordered, not carried out yet.");
  out.sample("unisched_agent_pending_placements", cluster,
             static_cast<double>(agent.pending_placements()));
  out.family("unisched_agent_view_version", "gauge", "The version of its last update.");
  out.sample("unisched_agent_view_version", cluster, static_cast<double>(agent.version()));
  out.family("unisched_agent_online", "gauge", "0 while cut off from the centre.");
  out.sample("unisched_agent_online", cluster, agent.online() ? 1 : 0);
}

}  // namespace

std::string render_shard_metrics(const v1::ClusterList& hosted, int missing_sources) {
  PrometheusText out;
  sources_missing(out, missing_sources);
  cluster_metrics(out, hosted);
  return out.text();
}

std::string render_agent_metrics(const v1::AgentSummary& agent, int missing_sources) {
  PrometheusText out;
  sources_missing(out, missing_sources);
  if (missing_sources == 0) {
    agent_metrics(out, agent);
  }
  return out.text();
}

std::string render_hub_metrics(const HubMetricsInput& input) {
  PrometheusText out;
  sources_missing(out, input.missing_sources);
  cluster_metrics(out, input.clusters);
  scheduler_metrics(out, input.schedulers);
  journal_metrics(out);
  grpc_metrics(out);
  return out.text();
}

}  // namespace unisched::runtime
