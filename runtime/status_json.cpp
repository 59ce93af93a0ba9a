#include "runtime/status_json.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "runtime/json_report.hpp"

namespace unisched::runtime {
namespace {

Json cluster_json(const v1::ClusterSummary& cluster) {
  Json models = Json::array();
  for (const v1::ModelUsage& model : cluster.models()) {
    models.push_back({{"model", model.model()},
                      {"devices", model.devices()},
                      {"free_devices", model.free_devices()}});
  }
  return {{"id", cluster.cluster_id()},
          {"healthy", cluster.healthy()},
          {"version", cluster.version()},
          {"staleness_ms", cluster.staleness_ms()},
          {"nodes", cluster.nodes()},
          {"view_only", cluster.view_only()},
          {"models", models}};
}

Json quota_json(const v1::QuotaStatus& status) {
  const v1::QuotaDefinition& quota = status.quota();
  return {{"quota",
           {{"name", quota.name()},
            {"queue", quota.queue()},
            {"cohort", quota.cohort()},
            {"hard", quota_amounts_json(quota.hard())}}},
          {"used", quota_amounts_json(status.used())},
          {"pending_requests", status.pending_requests()}};
}

Json scheduler_json(const v1::SchedulerSummary& scheduler) {
  return {{"waiting", scheduler.waiting()},
          {"waiting_for_quota", scheduler.waiting_for_quota()},
          {"tracked", scheduler.tracked()},
          {"placed", scheduler.placed()},
          {"partially_placed", scheduler.partially_placed()},
          {"unschedulable", scheduler.unschedulable()},
          {"conflicts", scheduler.conflicts()}};
}

/// "cluster: N replicas on M nodes", per cluster the decision placed on.
Json placements_by_cluster(const v1::SchedulingDecision& decision) {
  std::map<std::string, std::pair<int, std::set<std::string>>> clusters;
  for (const auto& replica : decision.replicas()) {
    auto& [replicas, nodes] = clusters[replica.cluster()];
    ++replicas;
    nodes.insert(replica.node());
  }
  Json out = Json::array();
  for (const auto& [cluster, placed] : clusters) {
    const auto& [replicas, nodes] = placed;
    out.push_back(cluster + ": " + std::to_string(replicas) +
                  (replicas == 1 ? " replica on " : " replicas on ") +
                  std::to_string(nodes.size()) + (nodes.size() == 1 ? " node" : " nodes"));
  }
  return out;
}

Json request_json(const v1::RequestStatus& request) {
  const Json placements = placements_by_cluster(request.decision());
  Json reasons = Json::array();
  for (const std::string& reason : request.decision().reasons()) {
    reasons.push_back(reason);
  }
  return {{"id", request.request_id()}, {"phase", v1::RequestStatus::Phase_Name(request.phase())},
          {"detail", request.detail()}, {"accepted_unix_ms", request.accepted_unix_ms()},
          {"placements", placements},   {"reasons", reasons}};
}

bool undecided(const v1::RequestStatus& request) {
  return request.phase() == v1::RequestStatus::PENDING ||
         request.phase() == v1::RequestStatus::QUEUED;
}

}  // namespace

std::string render_status_json(const StatusInput& input, size_t recent) {
  Json clusters = Json::array();
  for (const v1::ClusterSummary& cluster : input.hub.clusters.clusters()) {
    clusters.push_back(cluster_json(cluster));
  }
  Json schedulers = Json::array();
  for (const v1::SchedulerSummary& scheduler : input.hub.schedulers) {
    schedulers.push_back(scheduler_json(scheduler));
  }
  std::vector<const v1::RequestStatus*> decided;
  Json waiting = Json::array();
  for (const v1::RequestStatus& request : input.requests.requests()) {
    if (undecided(request)) {
      waiting.push_back(request_json(request));
    } else {
      decided.push_back(&request);
    }
  }
  std::stable_sort(decided.begin(), decided.end(), [](const auto* a, const auto* b) {
    return a->accepted_unix_ms() > b->accepted_unix_ms();
  });
  decided.resize(std::min(decided.size(), recent));
  Json decisions = Json::array();
  for (const v1::RequestStatus* request : decided) {
    decisions.push_back(request_json(*request));
  }
  Json out{{"clusters", clusters},    {"schedulers", schedulers},
           {"waiting", waiting},      {"decisions", decisions},
           {"quotas", Json::array()}, {"missing_sources", input.hub.missing_sources}};
  for (const v1::QuotaStatus& quota : input.quotas.quotas()) {
    out["quotas"].push_back(quota_json(quota));
  }
  return dump_json(out);
}

}  // namespace unisched::runtime
