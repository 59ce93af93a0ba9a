#include "actors/supervisor.hpp"

#include <spdlog/spdlog.h>
#include <caf/actor_cast.hpp>
#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/exit_reason.hpp>
#include <caf/stateful_actor.hpp>

#include <functional>
#include <map>
#include <optional>

#include "model/version_gate.hpp"

#include "actors/stray_errors.hpp"
#include "messages/caf_types.hpp"
#include "messages/errors.hpp"

namespace unisched::actors {
namespace {

using namespace unisched::atoms;

struct ClusterEntry {
  std::string id;
  caf::actor agent;
  caf::actor cluster_actor;
  Lifecycle state = Lifecycle::Registering;
  int misses = 0;
  std::string home;  // the shard hosting its ClusterActor; empty: the supervisor's own node
};

/// A process hosting ClusterActors for the supervisor (unisched shard).
struct Shard {
  caf::actor actor;
  std::string endpoint;  // where agents reach it directly
  size_t clusters = 0;
};

struct SupervisorData {
  SupervisorSettings settings;
  std::map<std::string, ClusterEntry> clusters;
  std::map<std::string, Shard> shards;
  uint64_t probe_sequence = 0;
  static inline const char* name = "supervisor";
};

using Self = caf::stateful_actor<SupervisorData>;

void transition(ClusterEntry& entry, Lifecycle next, const std::string& why) {
  if (entry.state == next) {
    return;
  }
  const auto level = next == Lifecycle::Unhealthy || next == Lifecycle::Lost ? spdlog::level::warn
                                                                             : spdlog::level::info;
  spdlog::log(level, "cluster {}: {} -> {} ({})", entry.id, describe(entry.state), describe(next),
              why);
  entry.state = next;
}

/// Brings a cluster whose agent answers back to healthy: resynced first, healthy afterwards.
/// A returning agent or a restarted ClusterActor always gets a full snapshot; a new cluster only
/// when its first updates did not already bring the view to the agent's `position`.
void reconcile(Self* self, const std::string& id,
               const std::optional<model::StreamPosition>& position) {
  ClusterEntry& entry = self->state.clusters.at(id);
  transition(entry, Lifecycle::Resyncing,
             position ? "checking the view against the agent" : "pulling a full snapshot");
  auto request = position ? self->request(entry.cluster_actor, self->state.settings.resync_timeout,
                                          resync_atom_v, position->epoch, position->version)
                          : self->request(entry.cluster_actor, self->state.settings.resync_timeout,
                                          resync_atom_v);
  request.then(
      [=](v1::Ack& ack) {
        ClusterEntry& current = self->state.clusters.at(id);
        if (current.state != Lifecycle::Resyncing) {
          return;
        }
        transition(current, Lifecycle::Healthy,
                   "resynced at version " + std::to_string(ack.version()));
        self->send(current.cluster_actor, health_atom_v, true);
      },
      [=](caf::error& error) {
        ClusterEntry& current = self->state.clusters.at(id);
        if (current.state == Lifecycle::Resyncing) {
          transition(current, Lifecycle::Unhealthy, "resync failed: " + to_string(error));
        }
      });
}

void on_probe_answer(Self* self, const std::string& id, const v1::HealthStatus& status) {
  ClusterEntry& entry = self->state.clusters.at(id);
  entry.misses = 0;
  self->send(entry.cluster_actor, position_atom_v, status.epoch(), status.version());
  switch (entry.state) {
    case Lifecycle::Registering:
      reconcile(self, id, model::StreamPosition{status.epoch(), status.version()});
      break;
    case Lifecycle::Unhealthy:
      reconcile(self, id, std::nullopt);
      break;
    case Lifecycle::Suspect:
      transition(entry, Lifecycle::Healthy, "answered again");
      break;
    default:
      break;
  }
}

void on_probe_miss(Self* self, const std::string& id) {
  ClusterEntry& entry = self->state.clusters.at(id);
  ++entry.misses;
  if (entry.state == Lifecycle::Lost || entry.state == Lifecycle::Unhealthy) {
    return;
  }
  if (entry.misses >= self->state.settings.max_misses) {
    transition(entry, Lifecycle::Unhealthy, std::to_string(entry.misses) + " probes unanswered");
    self->send(entry.cluster_actor, health_atom_v, false);
  } else if (entry.state == Lifecycle::Healthy) {
    transition(entry, Lifecycle::Suspect, "a probe went unanswered");
  }
}

void probe_all(Self* self) {
  for (auto& [id, entry] : self->state.clusters) {
    if (entry.state == Lifecycle::Lost) {
      continue;
    }
    v1::HealthProbe probe;
    probe.set_cluster_id(id);
    probe.set_sequence(++self->state.probe_sequence);
    const std::string cluster = id;
    self->request(entry.agent, self->state.settings.probe_timeout, std::move(probe))
        .then([=](v1::HealthStatus& status) { on_probe_answer(self, cluster, status); },
              [=](caf::error&) { on_probe_miss(self, cluster); });
  }
}

/// FNV-1a: stable across processes and builds, unlike std::hash.
uint64_t stable_hash(const std::string& text) {
  uint64_t hash = 14695981039346656037ULL;
  for (const unsigned char c : text) {
    hash = (hash ^ c) * 1099511628211ULL;
  }
  return hash;
}

/// Rendezvous (highest random weight) hashing: each cluster goes to the shard that scores it
/// highest, so losing a shard moves only that shard's clusters. Null: no shard; host it here.
const std::pair<const std::string, Shard>* choose_home(const SupervisorData& state,
                                                       const std::string& cluster) {
  const std::pair<const std::string, Shard>* best = nullptr;
  uint64_t best_score = 0;
  for (const auto& shard : state.shards) {
    const uint64_t score = stable_hash(shard.first + "/" + cluster);
    if (!best || score > best_score) {
      best = &shard;
      best_score = score;
    }
  }
  return best;
}

std::string endpoint_of(const SupervisorData& state, const ClusterEntry& entry) {
  const auto shard = state.shards.find(entry.home);
  return shard == state.shards.end() ? std::string() : shard->second.endpoint;
}

void adopt(Self* self, ClusterEntry& entry, caf::actor cluster_actor, const std::string& home) {
  // Monitored, not linked: a killed ClusterActor must not take the supervisor with it. The
  // ClusterActor in turn monitors the supervisor and stops with it.
  entry.cluster_actor = std::move(cluster_actor);
  entry.home = home;
  if (auto shard = self->state.shards.find(home); shard != self->state.shards.end()) {
    ++shard->second.clusters;
  }
  self->monitor(entry.cluster_actor);
  self->send(entry.agent, bind_atom_v, entry.cluster_actor, endpoint_of(self->state, entry));
  spdlog::info("cluster {}: ClusterActor on {}", entry.id, home.empty() ? "the hub" : home);
}

/// Starts the cluster's ClusterActor on its home, then calls `started`. A shard that fails to
/// start it is dropped from the rotation and the next home is tried, down to this node.
void start_cluster_actor(Self* self, const std::string& id,
                         std::function<void(const caf::actor&)> started) {
  ClusterEntry& entry = self->state.clusters.at(id);
  const auto* home = choose_home(self->state, id);
  const caf::actor owner = caf::actor_cast<caf::actor>(self);
  if (home == nullptr) {
    adopt(self, entry,
          spawn_cluster_actor(self->system(), id, entry.agent, owner, self->state.settings.cluster),
          "");
    started(entry.cluster_actor);
    return;
  }
  const std::string shard = home->first;
  self->request(home->second.actor, self->state.settings.spawn_timeout, spawn_atom_v, id,
                entry.agent, owner)
      .then(
          [=](caf::actor& cluster_actor) {
            ClusterEntry& current = self->state.clusters.at(id);
            adopt(self, current, std::move(cluster_actor), shard);
            started(current.cluster_actor);
          },
          [=](caf::error& error) {
            spdlog::warn("shard {} could not host cluster {} ({}); trying the next home", shard, id,
                         to_string(error));
            self->state.shards.erase(shard);
            start_cluster_actor(self, id, started);
          });
}

/// A lost cluster's agent registers again (reconnected, or a new run): it replaces the old one,
/// and the cluster counts as healthy once its view is known to match the agent.
caf::actor readmit(Self* self, ClusterEntry& entry, caf::actor agent) {
  entry.agent = std::move(agent);
  entry.misses = 0;
  self->monitor(entry.agent);
  self->send(entry.agent, bind_atom_v, entry.cluster_actor, endpoint_of(self->state, entry));
  self->send(entry.cluster_actor, bind_atom_v, entry.agent);
  // The next probe tells where the agent stands: in step with the view, it resumes where it
  // left off; otherwise (a new run, missed updates) the view is rebuilt from a snapshot.
  transition(entry, Lifecycle::Registering, "agent registered again");
  return entry.cluster_actor;
}

void on_down(Self* self, const caf::down_msg& down) {
  for (auto shard = self->state.shards.begin(); shard != self->state.shards.end(); ++shard) {
    if (down.source == shard->second.actor) {
      // Its ClusterActors report their own down messages; each is restarted on a new home.
      spdlog::warn("shard {} lost ({}); re-homing its {} clusters", shard->first,
                   to_string(down.reason), shard->second.clusters);
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
      entry.cluster_actor = caf::actor();
      const std::string cluster = id;
      start_cluster_actor(self, cluster,
                          [=](const caf::actor&) { reconcile(self, cluster, std::nullopt); });
      return;
    }
    if (down.source == entry.agent) {
      transition(entry, Lifecycle::Lost, "agent exited: " + to_string(down.reason));
      self->send(entry.cluster_actor, health_atom_v, false);
      return;
    }
  }
}

/// The entry of cluster `id`, or null with `problem` set when there is none.
const ClusterEntry* known(const SupervisorData& state, const std::string& id, caf::error& problem) {
  const auto found = state.clusters.find(id);
  if (found == state.clusters.end()) {
    problem = messages::make_error(messages::Error::NotFound, "no cluster \"" + id + "\"");
    return nullptr;
  }
  return &found->second;
}

/// As known(), and also null while the cluster's ClusterActor is being started on a new home.
const ClusterEntry* running(const SupervisorData& state, const std::string& id,
                            caf::error& problem) {
  const ClusterEntry* entry = known(state, id, problem);
  if (entry != nullptr && !entry->cluster_actor) {
    problem = messages::make_error(messages::Error::Unavailable,
                                   "cluster \"" + id + "\" is being re-homed");
    return nullptr;
  }
  return entry;
}

caf::behavior supervisor(Self* self, SupervisorSettings settings) {
  self->state.settings = settings;
  self->set_down_handler([=](caf::down_msg& down) { on_down(self, down); });
  log_stray_errors(self, "supervisor");
  self->delayed_send(self, settings.probe_interval, probe_atom_v);
  return {
      [=](register_atom, const std::string& id, caf::actor agent) -> caf::result<caf::actor> {
        const auto known = self->state.clusters.find(id);
        if (known != self->state.clusters.end()) {
          if (known->second.state != Lifecycle::Lost) {
            return messages::make_error(messages::Error::AlreadyRegistered,
                                        "cluster \"" + id + "\" is already registered");
          }
          if (!known->second.cluster_actor) {
            return messages::make_error(messages::Error::Unavailable,
                                        "cluster \"" + id + "\" is being re-homed; try again");
          }
          return readmit(self, known->second, std::move(agent));
        }
        ClusterEntry& entry = self->state.clusters[id];
        entry.id = id;
        entry.agent = std::move(agent);
        self->monitor(entry.agent);
        spdlog::info("cluster {}: registered", id);
        auto promise = self->make_response_promise<caf::actor>();
        start_cluster_actor(self, id, [=](const caf::actor& cluster_actor) mutable {
          promise.deliver(cluster_actor);
        });
        return promise;
      },
      [=](shard_atom, const v1::ShardRegistration& shard,
          caf::actor actor) -> caf::result<caf::actor> {
        if (shard.shard_id().empty()) {
          return messages::make_error(messages::Error::InvalidArgument, "shard_id: Required value");
        }
        if (self->state.shards.count(shard.shard_id()) > 0) {
          return messages::make_error(messages::Error::AlreadyRegistered,
                                      "shard \"" + shard.shard_id() + "\" is already registered");
        }
        self->monitor(actor);
        // Sent before any spawn request (same sender, so in order): the shard obeys only us.
        self->send(actor, bind_atom_v, caf::actor_cast<caf::actor>(self));
        self->state.shards[shard.shard_id()] = Shard{std::move(actor), shard.endpoint(), 0};
        spdlog::info("shard {} joined at {}; it hosts clusters registered from now on",
                     shard.shard_id(), shard.endpoint());
        return caf::actor_cast<caf::actor>(self);
      },
      [=](view_atom, const std::string& id) -> caf::result<caf::message> {
        // What the agent itself holds, for comparing a view with its source.
        caf::error problem;
        const ClusterEntry* found = known(self->state, id, problem);
        if (found == nullptr) {
          return problem;
        }
        v1::SnapshotRequest request;
        request.mutable_cluster()->set_cluster_id(id);
        request.set_reason("asked by a client");
        return self->delegate(found->agent, std::move(request));
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
      [=](clusters_atom, const std::string& id) -> caf::result<caf::actor> {
        caf::error problem;
        const ClusterEntry* found = running(self->state, id, problem);
        if (found == nullptr) {
          return problem;
        }
        return found->cluster_actor;
      },
      [=](summary_atom, const std::string& id) -> caf::result<caf::message> {
        caf::error problem;
        const ClusterEntry* found = running(self->state, id, problem);
        if (found == nullptr) {
          return problem;
        }
        return self->delegate(found->cluster_actor, summary_atom_v);
      },
      [=](probe_atom) {
        probe_all(self);
        self->delayed_send(self, self->state.settings.probe_interval, probe_atom_v);
      },
  };
}

}  // namespace

const char* describe(Lifecycle state) {
  switch (state) {
    case Lifecycle::Registering:
      return "registering";
    case Lifecycle::Resyncing:
      return "resyncing";
    case Lifecycle::Healthy:
      return "healthy";
    case Lifecycle::Suspect:
      return "suspect";
    case Lifecycle::Unhealthy:
      return "unhealthy";
    case Lifecycle::Lost:
      return "lost";
  }
  return "unknown";
}

caf::actor spawn_supervisor(caf::actor_system& system, const SupervisorSettings& settings) {
  return system.spawn(supervisor, settings);
}

}  // namespace unisched::actors
