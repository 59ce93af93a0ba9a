#include "actors/grpc_agent_proxy.hpp"

#include <spdlog/spdlog.h>
#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include <optional>
#include <vector>

#include "actors/snapshot_transfer.hpp"
#include "cores/supervisor_core.hpp"
#include "messages/caf_types.hpp"
#include "messages/errors.hpp"
#include "messages/snapshot_parts.hpp"

namespace unisched::actors {
namespace {

using namespace unisched::atoms;
using Clock = std::chrono::steady_clock;

struct ProxyState {
  std::string cluster_id;
  GrpcAgentSettings settings;
  ClusterIngestActor cluster_actor;
  Clock::time_point last_heard{};
  uint64_t epoch = 0;
  uint64_t version = 0;         // the agent's last version (from its updates and heartbeats)
  uint64_t centre_version = 0;  // what the ClusterActor acknowledged last
  std::string trouble;  // why the agent last said its cluster is unhealthy; empty: it is not
  std::vector<caf::typed_response_promise<messages::AgentSnapshot>> snapshot_pulls;
  std::optional<v1::ClusterSnapshot> held_snapshot;  // pushed before anyone asked
  messages::SnapshotAssembler pushed_parts;          // of the snapshot the agent is pushing
  messages::AgentSnapshotParts pulled_parts;         // of the snapshot the centre is pulling
  std::vector<v1::PlacementOrder> orders;
  std::vector<v1::ReleaseOrder> releases;
  static inline const char* name = "grpc_agent_proxy";
};

using Self = GrpcAgentProxyActor::stateful_pointer<ProxyState>;

void heard(Self self, uint64_t epoch, uint64_t version) {
  auto& state = self->state;
  state.last_heard = self->clock().now();
  if (epoch != 0) {
    state.epoch = epoch;
    state.version = version;
  }
}

/// What the agent last said of its cluster (a heartbeat's state, or an update's health): only
/// UNHEALTHY counts; a state not given is taken as healthy. An UNHEALTHY update, which carries no
/// reason, keeps the one its heartbeat gave.
void note_health(Self self, v1::HealthState state, const std::string& detail) {
  std::string& trouble = self->state.trouble;
  if (state != v1::UNHEALTHY) {
    trouble.clear();
  } else if (!detail.empty()) {
    trouble = detail.substr(0, kMaxTroubleBytes);
  } else if (trouble.empty()) {
    trouble = "the agent says so";
  }
}

bool silent(Self self) {
  return self->clock().now() - self->state.last_heard > self->state.settings.silence_limit;
}

/// A whole snapshot from the agent, read once, here, into shared states and split into the
/// parts the ClusterActor takes; one part carrying the reason when it is malformed.
std::vector<messages::AgentSnapshot> read_into_parts(const v1::ClusterSnapshot& snapshot) {
  messages::AgentSnapshot read = messages::read_snapshot(snapshot);
  if (!read.problem.empty()) {
    return {std::move(read)};
  }
  return messages::split_into_parts<messages::AgentSnapshot>(*read.snapshot);
}

/// The first part of the answer to the centre's pull of `snapshot`, its later parts kept in
/// `parts`; the snapshot with its reason when it is malformed.
messages::AgentSnapshot start_answer(messages::AgentSnapshotParts& parts,
                                     const v1::ClusterSnapshot& snapshot) {
  messages::AgentSnapshot read = messages::read_snapshot(snapshot);
  if (!read.problem.empty()) {
    return read;
  }
  return parts.start(*read.snapshot);
}

/// The agent starts over with `snapshot`: the ClusterActor applies it and answers; pulls still
/// waiting are superseded by it.
caf::result<v1::Ack> start_over(Self self, v1::ClusterSnapshot snapshot) {
  heard(self, 0, 0);
  auto promise = self->make_response_promise<v1::Ack>();
  if (!self->state.cluster_actor) {
    promise.deliver(messages::make_error(messages::Error::Unavailable,
                                         "the cluster is being (re)started at the centre"));
    return promise;
  }
  const uint64_t epoch = snapshot.epoch();
  const uint64_t version = snapshot.version();
  push_snapshot_parts(self, self->state.cluster_actor, self->state.settings.push_timeout,
                      read_into_parts(snapshot), [=](const caf::expected<v1::Ack>& ack) mutable {
                        if (!ack) {
                          promise.deliver(ack.error());
                          return;
                        }
                        self->state.centre_version = ack->version();
                        if (ack->status() == v1::Ack::APPLIED) {
                          heard(self, epoch, version);
                        }
                        for (auto& pull : self->state.snapshot_pulls) {
                          pull.deliver(messages::make_error(messages::Error::Unavailable,
                                                            "superseded: the agent started over"));
                        }
                        self->state.snapshot_pulls.clear();
                        promise.deliver(*ack);
                      });
  return promise;
}

/// An update from the agent, passed on to the ClusterActor; its Ack goes back with the orders
/// and releases queued for the agent since its last call.
caf::result<v1::Ack> pass_update(Self self, v1::IncrementalUpdate& update) {
  heard(self, 0, 0);  // its position counts once the ClusterActor took the update
  if (update.has_health_status()) {
    note_health(self, update.health_status().state(), update.health_status().detail());
  }
  auto promise = self->make_response_promise<v1::Ack>();
  if (!self->state.cluster_actor) {
    v1::Ack ack;
    ack.set_cluster_id(self->state.cluster_id);
    ack.set_status(v1::Ack::REJECTED);
    ack.set_error("the cluster is being (re)started at the centre; send it again");
    promise.deliver(ack);
    return promise;
  }
  // Read once, here; the ClusterActor takes the states as read.
  const uint64_t epoch = update.epoch();
  const uint64_t version = update.version();
  self->request(self->state.cluster_actor, self->state.settings.push_timeout,
                messages::read_update(update))
      .then(
          [=](v1::Ack& ack) mutable {
            auto& state = self->state;
            state.centre_version = ack.version();
            if (ack.status() == v1::Ack::APPLIED || ack.status() == v1::Ack::DUPLICATE) {
              heard(self, epoch, version);
            }
            for (auto& order : state.orders) {
              *ack.add_orders() = std::move(order);
            }
            for (auto& release : state.releases) {
              *ack.add_releases() = std::move(release);
            }
            state.orders.clear();
            state.releases.clear();
            promise.deliver(ack);
          },
          [=](caf::error& error) mutable { promise.deliver(std::move(error)); });
  return promise;
}

/// A snapshot the agent pushed (whole, or its last part): answers the pulls waiting for one,
/// or is held for the next.
v1::Ack take_snapshot(Self self, const v1::ClusterSnapshot& pushed) {
  auto& state = self->state;
  v1::Ack ack;
  ack.set_cluster_id(state.cluster_id);
  ack.set_epoch(pushed.epoch());
  ack.set_version(pushed.version());
  auto taken = state.pushed_parts.add(pushed);
  if (!taken || !taken.value()) {
    ack.set_status(taken ? v1::Ack::PART_TAKEN : v1::Ack::REJECTED);
    ack.set_error(taken ? std::string() : taken.error());
    return ack;
  }
  const v1::ClusterSnapshot& snapshot = *taken.value();
  heard(self, snapshot.epoch(), snapshot.version());
  ack.set_status(v1::Ack::APPLIED);
  if (state.snapshot_pulls.empty()) {
    state.held_snapshot = snapshot;
    ack.set_error("kept for the centre's next snapshot pull");
  }
  if (!state.snapshot_pulls.empty()) {
    const messages::AgentSnapshot first = start_answer(state.pulled_parts, snapshot);
    for (auto& pull : state.snapshot_pulls) {
      pull.deliver(first);
    }
  }
  state.snapshot_pulls.clear();
  return ack;
}

/// The agent's heartbeat: how the centre stands with it, and whether a snapshot is wanted.
v1::HealthStatus on_heartbeat(Self self, const v1::HealthProbe& heartbeat) {
  heard(self, heartbeat.epoch(), heartbeat.version());
  note_health(self, heartbeat.state(), heartbeat.detail());
  const auto& state = self->state;
  v1::HealthStatus status;
  status.set_cluster_id(state.cluster_id);
  status.set_state(state.cluster_actor ? v1::HEALTHY : v1::DEGRADED);
  status.set_epoch(state.epoch);
  status.set_version(state.centre_version);
  status.set_snapshot_wanted(!state.snapshot_pulls.empty());
  status.set_detail(state.snapshot_pulls.empty() ? "in step" : "the centre needs a full snapshot");
  return status;
}

/// The supervisor's probe, answered for the agent while it has called recently.
caf::result<v1::HealthStatus> answer_probe(Self self) {
  const auto& state = self->state;
  if (silent(self)) {
    return self->make_response_promise<v1::HealthStatus>();  // never answered: a miss
  }
  v1::HealthStatus status;
  status.set_cluster_id(state.cluster_id);
  status.set_state(state.trouble.empty() ? v1::HEALTHY : v1::UNHEALTHY);
  status.set_detail(state.trouble);
  status.set_epoch(state.epoch);
  status.set_version(state.version);
  return status;
}

/// The ClusterActor's pull: a later part of the snapshot being pulled; or the snapshot held if
/// it is current, else one the agent pushes next (their first part).
caf::result<messages::AgentSnapshot> answer_pull(Self self, const v1::SnapshotRequest& request) {
  auto& state = self->state;
  if (request.part() > 0) {
    auto part = state.pulled_parts.part(request);
    if (!part) {
      return messages::make_error(messages::Error::Unavailable, part.error());
    }
    return std::move(part.value());
  }
  if (state.held_snapshot && state.held_snapshot->epoch() == state.epoch &&
      state.held_snapshot->version() >= state.version) {
    const v1::ClusterSnapshot snapshot = std::move(*state.held_snapshot);
    state.held_snapshot.reset();
    return start_answer(state.pulled_parts, snapshot);
  }
  state.held_snapshot.reset();
  // The ClusterActor pulls once at a time: an older pull has timed out there already.
  for (auto& stale : state.snapshot_pulls) {
    stale.deliver(messages::make_error(messages::Error::Unavailable, "superseded"));
  }
  state.snapshot_pulls.clear();
  auto promise = self->make_response_promise<messages::AgentSnapshot>();
  state.snapshot_pulls.push_back(promise);
  return promise;
}

GrpcAgentProxyActor::behavior_type proxy(Self self, std::string cluster_id,
                                         GrpcAgentSettings settings) {
  self->state.cluster_id = std::move(cluster_id);
  self->state.settings = settings;
  return {
      // From the gRPC service.
      [=](push_atom, v1::IncrementalUpdate& update) { return pass_update(self, update); },
      [=](push_atom, const v1::ClusterSnapshot& snapshot) -> caf::result<v1::Ack> {
        return take_snapshot(self, snapshot);
      },
      [=](health_atom, const v1::HealthProbe& heartbeat) -> caf::result<v1::HealthStatus> {
        return on_heartbeat(self, heartbeat);
      },
      [=](reset_atom, v1::ClusterSnapshot& snapshot) -> caf::result<v1::Ack> {
        return start_over(self, std::move(snapshot));
      },
      // From the centre, as the cluster's agent.
      [=](const v1::HealthProbe&) { return answer_probe(self); },
      [=](const v1::SnapshotRequest& request) { return answer_pull(self, request); },
      [=](bind_atom, ClusterIngestActor cluster_actor, const std::string&) {
        self->state.cluster_actor = std::move(cluster_actor);
      },
      [=](const v1::PlacementOrder& order) {
        if (self->state.settings.view_only) {
          spdlog::error("cluster {}: {} placements dropped: the cluster is a view only",
                        self->state.cluster_id, order.placements_size());
          return;
        }
        self->state.orders.push_back(order);
      },
      [=](const v1::ReleaseOrder& release) { self->state.releases.push_back(release); },
  };
}

}  // namespace

GrpcAgentProxyActor spawn_grpc_agent_proxy(caf::actor_system& system, const std::string& cluster_id,
                                           const GrpcAgentSettings& settings) {
  return system.spawn(proxy, cluster_id, settings);
}

}  // namespace unisched::actors
