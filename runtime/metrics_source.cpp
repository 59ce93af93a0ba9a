#include "runtime/metrics_source.hpp"

#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>

#include "messages/caf_types.hpp"

namespace unisched::runtime {

using namespace unisched::atoms;

HubMetricsInput collect_hub_metrics(caf::actor_system& system, const actors::HubActor& hub,
                                    const std::vector<actors::SchedulerActor>& schedulers,
                                    std::chrono::milliseconds patience) {
  caf::scoped_actor self{system};
  HubMetricsInput input;
  self->request(hub, patience, clusters_atom_v)
      .receive([&](v1::ClusterList& list) { input.clusters = std::move(list); },
               [&](caf::error&) { ++input.missing_sources; });
  for (const actors::SchedulerActor& scheduler : schedulers) {
    self->request(scheduler, patience, summary_atom_v)
        .receive([&](v1::SchedulerSummary& summary) { input.schedulers.push_back(summary); },
                 [&](caf::error&) {
                   ++input.missing_sources;
                   input.schedulers.emplace_back();  // keeps the others' indexes
                 });
  }
  return input;
}

std::optional<v1::ClusterList> collect_shard_clusters(caf::actor_system& system,
                                                      const actors::ShardActor& shard,
                                                      std::chrono::milliseconds patience) {
  caf::scoped_actor self{system};
  std::optional<v1::ClusterList> hosted;
  self->request(shard, patience, clusters_atom_v)
      .receive([&](v1::ClusterList& list) { hosted = std::move(list); }, [](caf::error&) {});
  return hosted;
}

std::optional<v1::AgentSummary> collect_agent_summary(caf::actor_system& system,
                                                      const actors::LocalAgentActor& agent,
                                                      std::chrono::milliseconds patience) {
  caf::scoped_actor self{system};
  std::optional<v1::AgentSummary> summary;
  self->request(agent, patience, summary_atom_v)
      .receive([&](v1::AgentSummary& answer) { summary = std::move(answer); }, [](caf::error&) {});
  return summary;
}

StatusInput collect_status(caf::actor_system& system, const actors::HubActor& hub,
                           const std::vector<actors::SchedulerActor>& schedulers,
                           std::chrono::milliseconds patience) {
  StatusInput status;
  status.hub = collect_hub_metrics(system, hub, schedulers, patience);
  caf::scoped_actor self{system};
  self->request(hub, patience, requests_atom_v)
      .receive([&](v1::RequestList& list) { status.requests = std::move(list); },
               [&](caf::error&) { ++status.hub.missing_sources; });
  self->request(hub, patience, quotas_atom_v)
      .receive([&](v1::QuotaList& list) { status.quotas = std::move(list); },
               [&](caf::error&) { ++status.hub.missing_sources; });
  return status;
}

}  // namespace unisched::runtime
