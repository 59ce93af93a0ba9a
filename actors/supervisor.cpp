#include "actors/supervisor.hpp"

#include <spdlog/spdlog.h>
#include <caf/actor_cast.hpp>
#include <caf/actor_system.hpp>
#include <caf/exit_reason.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "actors/snapshot_transfer.hpp"
#include "actors/stray_errors.hpp"
#include "cores/recent_ids.hpp"
#include "cores/supervisor_core.hpp"
#include "messages/caf_types.hpp"
#include "messages/convert.hpp"
#include "messages/errors.hpp"
#include "model/printable.hpp"

namespace unisched::actors {
namespace {

using namespace unisched::atoms;

struct ClusterEntry {
  std::string id;
  AgentActor agent;
  ClusterActor cluster_actor;
  std::string home;  // the shard hosting its ClusterActor; empty: the supervisor's own node
};

/// A process hosting ClusterActors for the supervisor (unisched shard).
struct Shard {
  ShardActor actor;
  std::string endpoint;  // where agents reach it directly
  size_t clusters = 0;
};

/// How many given-up requests a ClusterActor started later is told of.
constexpr size_t kGivenUpRemembered = 4096;

struct SupervisorActorState {
  SupervisorSettings settings;
  std::optional<SupervisorCore> core;  // each cluster's lifecycle
  std::map<std::string, ClusterEntry> clusters;
  std::map<std::string, Shard> shards;
  uint64_t probe_sequence = 0;
  PlacementListenerActor finished_listener;  // told of finished work the ClusterActors report
  RecentIds given_up{kGivenUpRemembered};    // requests whose placements are released
  static inline const char* name = "supervisor";
};

using Self = SupervisorActor::stateful_pointer<SupervisorActorState>;

/// Tells a ClusterActor to release every placement of these given-up requests.
void send_given_up(Self self, const ClusterEntry& entry, const std::deque<std::string>& ids) {
  if (ids.empty() || !entry.cluster_actor) {
    return;
  }
  v1::ReleaseOrder release;
  release.set_cluster_id(entry.id);
  release.mutable_request_ids()->Add(ids.begin(), ids.end());
  // Nothing to do with the answer: a ClusterActor that dies first is told again by adopt().
  self->request(entry.cluster_actor, self->state.settings.resync_timeout, std::move(release))
      .then([](v1::Ack&) {}, [](caf::error&) {});
}

/// Request attempts the hub gave up (the request is decided again under a new attempt): what
/// they placed is released on every cluster. Believed only
/// from this process: a peer could otherwise end anyone's work.
void on_given_up(Self self, const v1::GivenUpRequests& given_up) {
  const caf::strong_actor_ptr& sender = self->current_sender();
  if (!sender || sender->node() != self->node()) {
    spdlog::warn("supervisor: given-up requests not from this process; dropped");
    return;
  }
  const std::deque<std::string> ids(given_up.request_ids().begin(), given_up.request_ids().end());
  for (const std::string& id : ids) {
    self->state.given_up.insert(id);
  }
  spdlog::info("supervisor: releasing the placements of {} given-up requests ({})", ids.size(),
               given_up.reason());
  for (const auto& [id, entry] : self->state.clusters) {
    send_given_up(self, entry, ids);
  }
}

void carry_out(Self self, const SupervisorCommands& commands);

/// Asks the cluster's ClusterActor to resync (at `position`, or in full), and tells the core
/// how it went.
void resync(Self self, const std::string& id,
            const std::optional<model::StreamPosition>& position) {
  const ClusterEntry& entry = self->state.clusters.at(id);
  auto request = position ? self->request(entry.cluster_actor, self->state.settings.resync_timeout,
                                          resync_atom_v, position->epoch, position->version)
                          : self->request(entry.cluster_actor, self->state.settings.resync_timeout,
                                          resync_atom_v);
  request.then(
      [=](v1::Ack& ack) { carry_out(self, self->state.core->on_resync_done(id, ack.version())); },
      [=](caf::error& error) {
        carry_out(self, self->state.core->on_resync_failed(id, to_string(error)));
      });
}

void carry_out(Self self, const SupervisorCommands& commands) {
  for (const SupervisorCommand& command : commands) {
    const auto entry = self->state.clusters.find(command.cluster);
    if (entry == self->state.clusters.end()) {
      continue;
    }
    const ClusterActor& cluster_actor = entry->second.cluster_actor;
    switch (command.kind) {
      case SupervisorCommand::Kind::Transition: {
        const bool bad = command.to == Lifecycle::Unhealthy || command.to == Lifecycle::Lost;
        spdlog::log(bad ? spdlog::level::warn : spdlog::level::info, "cluster {}: {} -> {} ({})",
                    command.cluster, describe(command.from), describe(command.to), command.why);
        break;
      }
      case SupervisorCommand::Kind::ReportPosition:
        self->send(cluster_actor, position_atom_v, command.position->epoch,
                   command.position->version);
        break;
      case SupervisorCommand::Kind::Resync:
        resync(self, command.cluster, command.position);
        break;
      case SupervisorCommand::Kind::SetHealth:
        self->send(cluster_actor, health_atom_v, command.healthy);
        break;
    }
  }
}

void probe_all(Self self) {
  for (const std::string& id : self->state.core->to_probe()) {
    v1::HealthProbe probe;
    probe.set_cluster_id(id);
    probe.set_sequence(++self->state.probe_sequence);
    self->request(self->state.clusters.at(id).agent, self->state.settings.probe_timeout,
                  std::move(probe))
        .then(
            [=](v1::HealthStatus& status) {
              const std::string trouble =
                  status.state() == v1::UNHEALTHY
                      ? model::printable(status.detail().substr(0, kMaxTroubleBytes))
                      : "";
              carry_out(self,
                        self->state.core->on_probe_answer(
                            id, model::StreamPosition{status.epoch(), status.version()}, trouble));
            },
            [=](caf::error&) { carry_out(self, self->state.core->on_probe_miss(id)); });
  }
}

std::string endpoint_of(const SupervisorActorState& state, const ClusterEntry& entry) {
  const auto shard = state.shards.find(entry.home);
  return shard == state.shards.end() ? std::string() : shard->second.endpoint;
}

void adopt(Self self, ClusterEntry& entry, ClusterActor cluster_actor, const std::string& home) {
  // Monitored, not linked: a killed ClusterActor must not take the supervisor with it. The
  // ClusterActor in turn monitors the supervisor and stops with it.
  entry.cluster_actor = std::move(cluster_actor);
  entry.home = home;
  if (auto shard = self->state.shards.find(home); shard != self->state.shards.end()) {
    ++shard->second.clusters;
  }
  self->monitor(entry.cluster_actor);
  // Finished work comes through here, where the sender can be checked against the directory.
  self->send(entry.cluster_actor, bind_atom_v, PlacementListenerActor{self});
  self->send(entry.agent, bind_atom_v, ClusterIngestActor{entry.cluster_actor},
             endpoint_of(self->state, entry));
  // A new ClusterActor (or one restarted) knows nothing of requests given up before it.
  send_given_up(self, entry, self->state.given_up.in_order());
  spdlog::info("cluster {}: ClusterActor on {}", entry.id, home.empty() ? "the hub" : home);
}

/// Starts the cluster's ClusterActor on its home, then calls `started`. A shard that fails to
/// start it is dropped from the rotation and the next home is tried, down to this node.
void start_cluster_actor(Self self, const std::string& id,
                         std::function<void(const ClusterActor&)> started) {
  ClusterEntry& entry = self->state.clusters.at(id);
  const std::optional<std::string> home = self->state.core->home_of(id);
  const auto owner = caf::actor_cast<caf::strong_actor_ptr>(self);
  if (!home) {
    adopt(self, entry,
          spawn_cluster_actor(self->system(), id, entry.agent, owner, self->state.settings.cluster),
          "");
    started(entry.cluster_actor);
    return;
  }
  const std::string shard = *home;
  self->request(self->state.shards.at(shard).actor, self->state.settings.spawn_timeout,
                spawn_atom_v, id, entry.agent, owner)
      .then(
          [=](ClusterActor& cluster_actor) {
            ClusterEntry& current = self->state.clusters.at(id);
            adopt(self, current, std::move(cluster_actor), shard);
            started(current.cluster_actor);
          },
          [=](caf::error& error) {
            spdlog::warn("shard {} could not host cluster {} ({}); trying the next home", shard, id,
                         to_string(error));
            self->state.shards.erase(shard);
            self->state.core->drop_shard(shard);
            start_cluster_actor(self, id, started);
          });
}

/// A lost cluster's agent registers again (reconnected, or a new run): it replaces the old one,
/// and the cluster counts as healthy once its view is known to match the agent.
ClusterActor readmit(Self self, ClusterEntry& entry, AgentActor agent) {
  entry.agent = std::move(agent);
  self->monitor(entry.agent);
  self->send(entry.agent, bind_atom_v, ClusterIngestActor{entry.cluster_actor},
             endpoint_of(self->state, entry));
  self->send(entry.cluster_actor, bind_atom_v, entry.agent);
  carry_out(self, self->state.core->on_agent_returned(entry.id));
  return entry.cluster_actor;
}

void on_down(Self self, const caf::down_msg& down) {
  for (auto shard = self->state.shards.begin(); shard != self->state.shards.end(); ++shard) {
    if (down.source == shard->second.actor) {
      // Its ClusterActors report their own down messages; each is restarted on a new home.
      spdlog::warn("shard {} lost ({}); re-homing its {} clusters", shard->first,
                   to_string(down.reason), shard->second.clusters);
      self->state.core->drop_shard(shard->first);
      self->state.shards.erase(shard);
      return;
    }
  }
  for (auto& [id, entry] : self->state.clusters) {
    if (down.source == entry.cluster_actor) {
      spdlog::error("cluster {}: ClusterActor exited ({}); restarting it from a full snapshot", id,
                    to_string(down.reason));
      if (auto shard = self->state.shards.find(entry.home); shard != self->state.shards.end()) {
        --shard->second.clusters;
      }
      entry.cluster_actor = ClusterActor();
      const std::string cluster = id;
      start_cluster_actor(self, cluster, [=](const ClusterActor&) {
        carry_out(self, self->state.core->on_cluster_actor_restarted(cluster));
      });
      return;
    }
    if (down.source == entry.agent) {
      carry_out(self, self->state.core->on_agent_lost(id, to_string(down.reason)));
      return;
    }
  }
}

/// The entry of cluster `id`, or null with `problem` set when there is none.
const ClusterEntry* known(const SupervisorActorState& state, const std::string& id,
                          caf::error& problem) {
  const auto found = state.clusters.find(id);
  if (found == state.clusters.end()) {
    problem = messages::make_error(messages::Error::NotFound, "no cluster \"" + id + "\"");
    return nullptr;
  }
  return &found->second;
}

/// As known(), and also null while the cluster's ClusterActor is being started on a new home.
const ClusterEntry* running(const SupervisorActorState& state, const std::string& id,
                            caf::error& problem) {
  const ClusterEntry* entry = known(state, id, problem);
  if (entry != nullptr && !entry->cluster_actor) {
    problem = messages::make_error(messages::Error::Unavailable,
                                   "cluster \"" + id + "\" is being re-homed");
    return nullptr;
  }
  return entry;
}

/// An agent registers its cluster: a new cluster gets a ClusterActor on its home; a lost one's
/// (or one whose agent exited) new agent is readmitted; the registered agent registering again is
/// bound again; another agent cannot register a live cluster.
caf::result<ClusterActor> on_register(Self self, const std::string& id, AgentActor agent) {
  auto& state = self->state;
  const auto known = state.clusters.find(id);
  const bool same_agent = known != state.clusters.end() && known->second.agent == agent;
  const bool running = known != state.clusters.end() && known->second.cluster_actor;
  switch (state.core->admission(id, same_agent, running)) {
    case SupervisorCore::Admission::BindAgain:
      self->send(agent, bind_atom_v, ClusterIngestActor{known->second.cluster_actor},
                 endpoint_of(state, known->second));
      return known->second.cluster_actor;
    case SupervisorCore::Admission::AlreadyRegistered:
      return messages::make_error(messages::Error::AlreadyRegistered,
                                  "cluster \"" + id + "\" is already registered");
    case SupervisorCore::Admission::BeingRehomed:
      return messages::make_error(messages::Error::Unavailable,
                                  "cluster \"" + id + "\" is being re-homed; try again");
    case SupervisorCore::Admission::Readmit:
      return readmit(self, known->second, std::move(agent));
    case SupervisorCore::Admission::New:
      break;
  }
  state.core->add(id);
  ClusterEntry& entry = state.clusters[id];
  entry.id = id;
  entry.agent = std::move(agent);
  self->monitor(entry.agent);
  spdlog::info("cluster {}: registered", id);
  auto promise = self->make_response_promise<ClusterActor>();
  start_cluster_actor(
      self, id, [=](const ClusterActor& cluster_actor) mutable { promise.deliver(cluster_actor); });
  return promise;
}

/// A shard offers to host ClusterActors: bound to this supervisor, it takes clusters that start
/// from now on.
caf::result<v1::ShardRegistration> on_shard(Self self, const v1::ShardRegistration& shard,
                                            ShardActor actor) {
  if (shard.shard_id().empty()) {
    return messages::make_error(messages::Error::InvalidArgument, "shard_id: Required value");
  }
  if (self->state.shards.count(shard.shard_id()) > 0) {
    return messages::make_error(messages::Error::AlreadyRegistered,
                                "shard \"" + shard.shard_id() + "\" is already registered");
  }
  self->monitor(actor);
  // Sent before any spawn request (same sender, so in order): the shard obeys only us.
  self->send(actor, bind_atom_v);
  self->state.shards[shard.shard_id()] = Shard{std::move(actor), shard.endpoint(), 0};
  self->state.core->add_shard(shard.shard_id());
  spdlog::info("shard {} joined at {}; it hosts clusters registered from now on", shard.shard_id(),
               shard.endpoint());
  return shard;
}

/// Passes finished work on to the listener when it comes from the cluster's current
/// ClusterActor; anyone else (an agent, a stale ClusterActor, a stranger) is not believed.
void pass_on_finished(Self self, const v1::FinishedPlacements& finished) {
  const auto entry = self->state.clusters.find(finished.cluster_id());
  const bool from_its_cluster_actor =
      entry != self->state.clusters.end() && entry->second.cluster_actor &&
      self->current_sender() == caf::actor_cast<caf::strong_actor_ptr>(entry->second.cluster_actor);
  if (!from_its_cluster_actor) {
    spdlog::warn(
        "supervisor: finished placements for cluster {} not from its ClusterActor; "
        "dropped",
        model::printable(finished.cluster_id()));
    return;
  }
  if (self->state.finished_listener) {
    self->send(self->state.finished_listener, finished);
  }
}

SupervisorActor::behavior_type supervisor(Self self, SupervisorSettings settings) {
  self->state.settings = settings;
  self->state.core.emplace(settings.max_misses);
  self->set_down_handler([=](caf::down_msg& down) { on_down(self, down); });
  log_stray_errors(self, "supervisor");
  self->delayed_send(self, settings.probe_interval, probe_atom_v);
  return {
      [=](register_atom, const std::string& id, AgentActor agent) {
        return on_register(self, id, std::move(agent));
      },
      [=](shard_atom, const v1::ShardRegistration& shard, ShardActor actor) {
        return on_shard(self, shard, std::move(actor));
      },
      [=](view_atom, const std::string& id) -> caf::result<v1::ClusterSnapshot> {
        // What the agent itself holds, for comparing a view with its source.
        caf::error problem;
        const ClusterEntry* found = known(self->state, id, problem);
        if (found == nullptr) {
          return problem;
        }
        v1::SnapshotRequest request;
        request.mutable_cluster()->set_cluster_id(id);
        request.set_reason("asked by a client");
        auto promise = self->make_response_promise<v1::ClusterSnapshot>();
        pull_snapshot_parts<messages::AgentSnapshot>(
            self, found->agent, self->state.settings.resync_timeout, std::move(request),
            [=](const caf::expected<model::ViewSnapshot>& snapshot) mutable {
              if (snapshot) {
                promise.deliver(messages::to_proto(*snapshot));
              } else {
                promise.deliver(snapshot.error());
              }
            });
        return promise;
      },
      [=](shard_atom, const std::string& id) -> caf::result<v1::ClusterHome> {
        caf::error problem;
        const ClusterEntry* found = known(self->state, id, problem);
        if (found == nullptr) {
          return problem;
        }
        v1::ClusterHome home;
        home.set_cluster_id(id);
        home.set_shard_id(found->home);
        home.set_endpoint(endpoint_of(self->state, *found));
        return home;
      },
      [=](clusters_atom, const std::string& id) -> caf::result<ClusterActor> {
        caf::error problem;
        const ClusterEntry* found = running(self->state, id, problem);
        if (found == nullptr) {
          return problem;
        }
        return found->cluster_actor;
      },
      [=](summary_atom, const std::string& id) -> caf::result<v1::ClusterSummary> {
        caf::error problem;
        const ClusterEntry* found = running(self->state, id, problem);
        if (found == nullptr) {
          return problem;
        }
        return self->delegate(found->cluster_actor, summary_atom_v);
      },
      [=](bind_atom, PlacementListenerActor listener) {
        // Bound once, by the process that spawned it, before it is reachable from outside.
        if (self->state.finished_listener) {
          spdlog::warn("supervisor: a second listener for finished work refused");
          return;
        }
        self->state.finished_listener = std::move(listener);
      },
      [=](const v1::FinishedPlacements& finished) { pass_on_finished(self, finished); },
      [=](const v1::GivenUpRequests& given_up) { on_given_up(self, given_up); },
      [=](probe_atom) {
        probe_all(self);
        self->delayed_send(self, self->state.settings.probe_interval, probe_atom_v);
      },
  };
}

}  // namespace

SupervisorActor spawn_supervisor(caf::actor_system& system, const SupervisorSettings& settings) {
  return system.spawn(supervisor, settings);
}

}  // namespace unisched::actors
