#include "actors/agent_actor.hpp"

#include <spdlog/spdlog.h>
#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include <algorithm>
#include <optional>
#include <vector>

#include "actors/core_summaries.hpp"
#include "actors/left_out_log.hpp"
#include "actors/snapshot_transfer.hpp"
#include "actors/stray_errors.hpp"
#include "cores/agent_core.hpp"
#include "messages/caf_types.hpp"
#include "messages/convert.hpp"
#include "messages/snapshot_parts.hpp"

namespace unisched::actors {
namespace {

using namespace unisched::atoms;

struct AgentActorState {
  std::optional<AgentCore> core;
  ClusterIngestActor cluster_actor;
  AgentSettings settings;
  bool online = true;
  messages::AgentSnapshotParts snapshot_parts;  // of the snapshot being pulled, for its later parts
  std::vector<messages::AgentUpdate> throttled;  // refused over the rate: sent again, in order
  bool retry_scheduled = false;
  static inline const char* name = "agent_actor";
};

using Self = LocalAgentActor::stateful_pointer<AgentActorState>;

void hold_throttled(Self self, messages::AgentUpdate update, uint32_t retry_after_ms);

void send_update(Self self, messages::AgentUpdate update) {
  self->request(self->state.cluster_actor, self->state.settings.push_timeout, update)
      .then(
          [=](v1::Ack& ack) mutable {
            if (ack.status() == v1::Ack::THROTTLED) {
              hold_throttled(self, std::move(update), ack.retry_after_ms());
            } else if (ack.status() == v1::Ack::REJECTED) {
              spdlog::error("agent {}: update {} rejected: {}", self->state.core->cluster_id(),
                            ack.version(), ack.error());
            }
          },
          [=](caf::error& error) {
            // The ClusterActor finds the gap and pulls a snapshot; nothing to repeat here.
            spdlog::debug("agent {}: no ack: {}", self->state.core->cluster_id(), to_string(error));
          });
}

/// The centre refuses every update for a while: this one and those after it go again, in
/// version order, once the wait is over (new ones wait behind them).
void hold_throttled(Self self, messages::AgentUpdate update, uint32_t retry_after_ms) {
  auto& held = self->state.throttled;
  const auto at = std::upper_bound(held.begin(), held.end(), update.update->version,
                                   [](uint64_t version, const messages::AgentUpdate& other) {
                                     return version < other.update->version;
                                   });
  held.insert(at, std::move(update));
  if (!self->state.retry_scheduled) {
    self->state.retry_scheduled = true;
    spdlog::debug("agent {}: over the centre's update rate; sending again in {} ms",
                  self->state.core->cluster_id(), retry_after_ms);
    self->delayed_send(self, std::chrono::milliseconds(retry_after_ms), retry_atom_v);
  }
}

void send_new_updates(Self self) {
  // More changes than one update carries (a large cluster's first listing) go out as
  // consecutive versions, in order, at once.
  while (auto update = self->state.core->next_update()) {
    send_update(self, messages::share_update(std::move(*update)));
  }
}

void send_throttled_again(Self self) {
  self->state.retry_scheduled = false;
  auto held = std::move(self->state.throttled);
  self->state.throttled.clear();
  if (!self->state.online) {
    return;  // lost like any update of an agent cut off: the centre resyncs when it is back
  }
  // Only these: new changes wait for the next push, merged into one update, so an agent over
  // its rate sends fewer, larger updates instead of a backlog that never drains.
  for (auto& update : held) {
    send_update(self, std::move(update));
  }
}

/// After a relist the agent's state goes whole, as an agent that starts over sends it: the
/// centre replaces its view instead of reading the relist as one more change.
void push_snapshot(Self self) {
  AgentCore& core = *self->state.core;
  spdlog::info("agent {}: the cluster was listed again; pushing a full snapshot at version {}",
               core.cluster_id(), core.version());
  push_snapshot_parts(self, self->state.cluster_actor, self->state.settings.push_timeout,
                      messages::split_into_parts<messages::AgentSnapshot>(core.snapshot()),
                      [=](const caf::expected<v1::Ack>& ack) {
                        if (!ack) {
                          // The next update leaves a gap: the ClusterActor pulls a snapshot.
                          spdlog::debug("agent {}: no ack for the snapshot: {}",
                                        self->state.core->cluster_id(), to_string(ack.error()));
                        } else if (ack->status() == v1::Ack::REJECTED) {
                          spdlog::error("agent {}: snapshot refused: {}",
                                        self->state.core->cluster_id(), ack->error());
                        }
                      });
}

void push(Self self) {
  if (!self->state.cluster_actor) {
    return;  // not bound yet: changes keep accumulating into the first update
  }
  if (self->state.core->on_push_due() == AgentCore::PushKind::WholeSnapshot) {
    push_snapshot(self);
    return;
  }
  if (!self->state.throttled.empty() || self->state.retry_scheduled) {
    return;  // new updates go after the throttled ones
  }
  send_new_updates(self);
}

void bind(Self self, ClusterIngestActor cluster_actor) {
  const bool first = !self->state.cluster_actor;
  self->state.cluster_actor = std::move(cluster_actor);
  if (first && self->state.online) {
    push(self);  // the full listing goes out as soon as there is somewhere to send it
  }
}

/// Reads what changed in the cluster, tells of nodes it leaves out, and observes again later.
void observe(Self self) {
  AgentCore& core = *self->state.core;
  const model::NodeAdmission::News left_out = core.observe();
  warn_left_out("agent " + core.cluster_id(), left_out, core.nodes_left_out());
  self->delayed_send(self, self->state.settings.observe_interval, observe_atom_v);
}

/// The centre's pull of the whole state: part 0 splits it anew, later parts are those kept.
caf::result<messages::AgentSnapshot> answer_pull(Self self, const v1::SnapshotRequest& request) {
  if (!self->state.online) {
    return self->make_response_promise<messages::AgentSnapshot>();  // never answered
  }
  if (request.part() == 0) {
    return self->state.snapshot_parts.start(self->state.core->snapshot());
  }
  auto part = self->state.snapshot_parts.part(request);
  if (!part) {
    return messages::make_error(messages::Error::Unavailable, part.error());
  }
  return std::move(part.value());
}

/// The supervisor's probe: where the agent stands, and UNHEALTHY with the reason while its
/// adapter cannot see the cluster.
caf::result<v1::HealthStatus> answer_probe(Self self, const v1::HealthProbe& probe) {
  if (!self->state.online) {
    return self->make_response_promise<v1::HealthStatus>();  // never answered
  }
  const AgentCore& core = *self->state.core;
  v1::HealthStatus status;
  status.set_cluster_id(core.cluster_id());
  const std::string trouble = self->state.core->adapter().trouble();
  status.set_state(trouble.empty() ? v1::HEALTHY : v1::UNHEALTHY);
  status.set_epoch(core.epoch());
  status.set_version(core.version());
  status.set_detail(trouble.empty() ? "probe " + std::to_string(probe.sequence()) : trouble);
  return status;
}

LocalAgentActor::behavior_type agent_actor(Self self,
                                           std::shared_ptr<adapters::ClusterAdapter> adapter,
                                           uint64_t epoch, AgentSettings settings) {
  self->state.core.emplace(std::move(adapter), epoch);
  log_stray_errors(self, "agent " + self->state.core->cluster_id());
  self->state.settings = settings;
  // The first observation lists every node; it is pushed at once, not an interval later.
  self->send(self, observe_atom_v);
  self->send(self, push_atom_v);
  return {
      [=](observe_atom) { observe(self); },
      [=](retry_atom) { send_throttled_again(self); },
      [=](push_atom) {
        if (self->state.online) {
          push(self);
        }
        self->delayed_send(self, self->state.settings.push_interval, push_atom_v);
      },
      [=](const v1::SnapshotRequest& request) { return answer_pull(self, request); },
      [=](const v1::HealthProbe& probe) { return answer_probe(self, probe); },
      [=](bind_atom, ClusterIngestActor cluster_actor, const std::string& endpoint) {
        // On a shard: connect to it directly, so updates do not travel through the hub.
        if (!endpoint.empty() && self->state.settings.connect_directly) {
          self->state.settings.connect_directly(endpoint);
        }
        bind(self, std::move(cluster_actor));
      },
      [=](const v1::PlacementOrder& order) {
        spdlog::debug("agent {}: ordered to carry out {} placements, first {}",
                      self->state.core->cluster_id(), order.placements_size(),
                      order.placements_size() > 0 ? order.placements(0).id() : "");
        std::vector<model::Reservation> placements;
        for (const auto& placement : order.placements()) {
          placements.push_back(messages::from_proto(placement));
        }
        self->state.core->carry_out(placements);
      },
      [=](const v1::ReleaseOrder& order) {
        self->state.core->finish({order.placement_ids().begin(), order.placement_ids().end()});
        self->state.core->release_requests(
            {order.request_ids().begin(), order.request_ids().end()});
      },
      [=](summary_atom) {
        v1::AgentSummary summary = summarize(*self->state.core);
        summary.set_online(self->state.online);
        return summary;
      },
      [=](online_atom, bool online) {
        if (online != self->state.online) {
          spdlog::warn("agent {}: {}", self->state.core->cluster_id(),
                       online ? "reconnected" : "cut off from the centre");
        }
        self->state.online = online;
      },
  };
}

}  // namespace

LocalAgentActor spawn_agent_actor(caf::actor_system& system,
                                  std::shared_ptr<adapters::ClusterAdapter> adapter, uint64_t epoch,
                                  const AgentSettings& settings) {
  return system.spawn(agent_actor, std::move(adapter), epoch, settings);
}

}  // namespace unisched::actors
