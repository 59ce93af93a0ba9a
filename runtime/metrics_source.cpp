#include "runtime/metrics_source.hpp"

#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>

#include "messages/caf_types.hpp"

namespace unisched::runtime {
namespace {

using namespace unisched::atoms;

/// `actor`'s answer of type Answer to `question`, or nullopt when it gave none within `patience`.
template <class Answer, class Actor, class... Question>
std::optional<Answer> ask(caf::scoped_actor& self, const Actor& actor,
                          std::chrono::milliseconds patience, Question... question) {
  std::optional<Answer> answer;
  self->request(actor, patience, question...)
      .receive([&](Answer& reply) { answer = std::move(reply); }, [](caf::error&) {});
  return answer;
}

}  // namespace

HubMetricsInput collect_hub_metrics(caf::actor_system& system, const runtime::HubActor& hub,
                                    const std::vector<actors::SchedulerActor>& schedulers,
                                    std::chrono::milliseconds patience) {
  caf::scoped_actor self{system};
  HubMetricsInput input;
  auto clusters = ask<v1::ClusterList>(self, hub, patience, clusters_atom_v);
  input.missing_sources += clusters ? 0 : 1;
  input.clusters = std::move(clusters).value_or(v1::ClusterList{});
  for (const actors::SchedulerActor& scheduler : schedulers) {
    auto summary = ask<v1::SchedulerSummary>(self, scheduler, patience, summary_atom_v);
    input.missing_sources += summary ? 0 : 1;
    // An empty summary for one that did not answer keeps the others' indexes.
    input.schedulers.push_back(std::move(summary).value_or(v1::SchedulerSummary{}));
  }
  return input;
}

std::optional<v1::ClusterList> collect_shard_clusters(caf::actor_system& system,
                                                      const actors::ShardActor& shard,
                                                      std::chrono::milliseconds patience) {
  caf::scoped_actor self{system};
  return ask<v1::ClusterList>(self, shard, patience, clusters_atom_v);
}

std::optional<v1::AgentSummary> collect_agent_summary(caf::actor_system& system,
                                                      const actors::LocalAgentActor& agent,
                                                      std::chrono::milliseconds patience) {
  caf::scoped_actor self{system};
  return ask<v1::AgentSummary>(self, agent, patience, summary_atom_v);
}

StatusInput collect_status(caf::actor_system& system, const runtime::HubActor& hub,
                           const std::vector<actors::SchedulerActor>& schedulers,
                           std::chrono::milliseconds patience) {
  StatusInput status;
  status.hub = collect_hub_metrics(system, hub, schedulers, patience);
  caf::scoped_actor self{system};
  auto requests = ask<v1::RequestList>(self, hub, patience, requests_atom_v);
  auto quotas = ask<v1::QuotaList>(self, hub, patience, quotas_atom_v);
  status.hub.missing_sources += (requests ? 0 : 1) + (quotas ? 0 : 1);
  status.requests = std::move(requests).value_or(v1::RequestList{});
  status.quotas = std::move(quotas).value_or(v1::QuotaList{});
  return status;
}

}  // namespace unisched::runtime
