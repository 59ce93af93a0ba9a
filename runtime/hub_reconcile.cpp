// The hub's reconciliation: decided requests no scheduler follows any more (runtime/
// reconciliation.hpp), and placements a cluster holds that no decision holds, released as a
// garbage collector would (a release lost with a scheduler or a centre that stopped).
#include <spdlog/spdlog.h>
#include <caf/actor_cast.hpp>
#include <caf/stateful_actor.hpp>

#include <algorithm>
#include <set>
#include <string>

#include "messages/caf_types.hpp"
#include "runtime/hub_state.hpp"
#include "runtime/request_book.hpp"

namespace unisched::runtime {
namespace {

using namespace unisched::atoms;

/// Gives up what the reconciliation found will never run (a cluster refused or never received
/// a placement, and no scheduler places it again).
void give_up_unreconciled(HubSelf self, const std::vector<Reconciliation::GiveUp>& give_up) {
  for (const Reconciliation::GiveUp& request : give_up) {
    spdlog::warn("hub: request {} will never run: {}", request.request_id, request.reason);
  }
  carry_out(self, self->state.requests->give_up(give_up));
}

/// Asks `cluster`'s ClusterActor `query` and hands its answer to `then`; no answer (no
/// ClusterActor now, a timeout) is asked again next time.
template <class Then>
void ask_cluster(HubSelf self, const std::string& cluster, v1::PlacementQuery query, Then then) {
  self->request(self->state.supervisor, self->state.timeouts.placement_query, clusters_atom_v,
                cluster)
      .then(
          [=](actors::ClusterActor& cluster_actor) {
            self->request(cluster_actor, self->state.timeouts.placement_query, query)
                .then([=](v1::PlacementReport& report) { then(cluster_actor, report); },
                      [](caf::error&) {});
          },
          [](caf::error&) {});
}

/// Asks each cluster about the placements the reconciliation follows.
void reconcile(HubSelf self) {
  for (auto& [cluster, asked] : self->state.requests->reconciliation().questions()) {
    v1::PlacementQuery query;
    query.mutable_placement_ids()->Add(asked.begin(), asked.end());
    ask_cluster(self, cluster, std::move(query),
                [=, cluster = cluster, asked = asked](const actors::ClusterActor&,
                                                      const v1::PlacementReport& report) {
                  Reconciliation::Outcome outcome =
                      self->state.requests->reconciliation().on_report(cluster, asked, report);
                  spdlog::debug(
                      "hub: cluster {} ({}) on {} placements no scheduler follows: "
                      "{} ended, {} requests given up",
                      cluster, report.synced() ? "in step" : "not in step", asked.size(),
                      outcome.ended.size(), outcome.give_up.size());
                  give_up_unreconciled(self, outcome.give_up);
                  if (!outcome.ended.empty()) {
                    v1::FinishedPlacements finished;
                    finished.set_cluster_id(cluster);
                    finished.mutable_placement_ids()->Add(outcome.ended.begin(),
                                                          outcome.ended.end());
                    record_finished(self, finished);
                  }
                });
  }
}

/// Asks every cluster what it holds and releases what no decision holds there.
void collect_strays(HubSelf self) {
  for (const auto& [id, registration] : self->state.clusters) {
    v1::PlacementQuery query;
    query.set_list_held(true);
    ask_cluster(
        self, id, std::move(query),
        [=, cluster = id](const actors::ClusterActor& cluster_actor,
                          const v1::PlacementReport& report) {
          if (!report.synced()) {
            return;
          }
          auto& state = self->state;
          const std::vector<std::string> strays = find_strays(
              cluster, {report.held().begin(), report.held().end()}, state.requests->book(),
              [&](const std::string& request) { return state.requests->deciding(request); });
          state.strays[cluster] = strays.size();
          if (strays.empty()) {
            return;
          }
          spdlog::warn(
              "hub: cluster {} holds {} placements no decision holds (first {}); "
              "releasing them",
              cluster, strays.size(), strays.front());
          v1::ReleaseOrder release;
          release.set_cluster_id(cluster);
          release.mutable_placement_ids()->Add(strays.begin(), strays.end());
          self->request(cluster_actor, self->state.timeouts.placement_query, std::move(release))
              .then([](v1::Ack&) {}, [](caf::error&) {});  // found again if lost
        });
  }
}

/// While requests undecided at a restart wait for the clusters: asks each registered cluster
/// they wait for whether its view is in step with its agent (then the view holds what the
/// cluster runs, and they are decided on it), and schedules them past the deadline anyway.
void await_clusters(HubSelf self) {
  auto& state = self->state;
  carry_out(self, state.requests->tick(self->clock().now()));
  if (!state.requests->restart_gate().closed()) {
    return;
  }
  const std::set<std::string>& awaited = state.requests->restart_gate().awaited();
  for (const auto& [id, registration] : state.clusters) {
    if (!awaited.empty() && awaited.count(id) == 0) {
      continue;
    }
    ask_cluster(self, id, v1::PlacementQuery{},
                [=, cluster = id](const actors::ClusterActor&, const v1::PlacementReport& report) {
                  if (report.synced()) {
                    carry_out(self, self->state.requests->cluster_synced(cluster));
                  }
                });
  }
}

}  // namespace

void start_reconciling(HubSelf self) {
  self->delayed_send(self, self->state.timeouts.reconcile_interval, reconcile_atom_v);
}

void on_reconcile_tick(HubSelf self) {
  auto& state = self->state;
  await_clusters(self);
  reconcile(self);
  const auto every =
      std::max<int64_t>(1, state.collect_interval / state.timeouts.reconcile_interval);
  if (state.collect_interval.count() > 0 && ++state.ticks % every == 0) {
    collect_strays(self);
  }
  start_reconciling(self);
}

uint64_t reconciling(const HubState& state) {
  uint64_t count = state.requests->reconciliation().followed_requests();
  for (const auto& [cluster, strays] : state.strays) {
    count += strays;
  }
  return count;
}

}  // namespace unisched::runtime
