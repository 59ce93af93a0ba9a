#include "actors/supervisor.hpp"

#include <spdlog/spdlog.h>
#include <caf/actor_cast.hpp>
#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/exit_reason.hpp>
#include <caf/stateful_actor.hpp>

#include <map>
#include <optional>

#include "model/version_gate.hpp"

#include "messages/caf_types.hpp"

namespace unisched::actors {
namespace {

using namespace unisched::atoms;

struct ClusterEntry {
  std::string id;
  caf::actor agent;
  caf::actor cluster_actor;
  Lifecycle state = Lifecycle::Registering;
  int misses = 0;
};

struct SupervisorData {
  SupervisorSettings settings;
  std::map<std::string, ClusterEntry> clusters;
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

void start_cluster_actor(Self* self, ClusterEntry& entry) {
  // Monitored, not linked: a killed ClusterActor must not take the supervisor with it. The
  // ClusterActor in turn monitors the supervisor and stops with it.
  entry.cluster_actor =
      spawn_cluster_actor(self->system(), entry.id, entry.agent, caf::actor_cast<caf::actor>(self),
                          self->state.settings.cluster);
  self->monitor(entry.cluster_actor);
  self->send(entry.agent, bind_atom_v, entry.cluster_actor);
}

/// A lost cluster's agent registers again (reconnected, or a new run): it replaces the old one,
/// and the cluster counts as healthy once its view is known to match the agent.
caf::actor readmit(Self* self, ClusterEntry& entry, caf::actor agent) {
  entry.agent = std::move(agent);
  entry.misses = 0;
  self->monitor(entry.agent);
  self->send(entry.agent, bind_atom_v, entry.cluster_actor);
  self->send(entry.cluster_actor, bind_atom_v, entry.agent);
  // The next probe tells where the agent stands: in step with the view, it resumes where it
  // left off; otherwise (a new run, missed updates) the view is rebuilt from a snapshot.
  transition(entry, Lifecycle::Registering, "agent registered again");
  return entry.cluster_actor;
}

void on_down(Self* self, const caf::down_msg& down) {
  for (auto& [id, entry] : self->state.clusters) {
    if (down.source == entry.cluster_actor) {
      spdlog::error("cluster {}: ClusterActor exited ({}); restarting it from a full snapshot", id,
                    to_string(down.reason));
      start_cluster_actor(self, entry);
      reconcile(self, id, std::nullopt);
      return;
    }
    if (down.source == entry.agent) {
      transition(entry, Lifecycle::Lost, "agent exited: " + to_string(down.reason));
      self->send(entry.cluster_actor, health_atom_v, false);
      return;
    }
  }
}

caf::behavior supervisor(Self* self, SupervisorSettings settings) {
  self->state.settings = settings;
  self->set_down_handler([=](caf::down_msg& down) { on_down(self, down); });
  self->delayed_send(self, settings.probe_interval, probe_atom_v);
  return {
      [=](register_atom, const std::string& id, caf::actor agent) -> caf::result<caf::actor> {
        const auto known = self->state.clusters.find(id);
        if (known != self->state.clusters.end()) {
          if (known->second.state != Lifecycle::Lost) {
            return caf::make_error(caf::sec::invalid_argument,
                                   "cluster \"" + id + "\" is already registered");
          }
          return readmit(self, known->second, std::move(agent));
        }
        ClusterEntry& entry = self->state.clusters[id];
        entry.id = id;
        entry.agent = std::move(agent);
        self->monitor(entry.agent);
        start_cluster_actor(self, entry);
        spdlog::info("cluster {}: registered", id);
        return entry.cluster_actor;
      },
      [=](clusters_atom, const std::string& id) -> caf::result<caf::actor> {
        const auto found = self->state.clusters.find(id);
        if (found == self->state.clusters.end()) {
          return caf::make_error(caf::sec::invalid_argument, "no cluster \"" + id + "\"");
        }
        return found->second.cluster_actor;
      },
      [=](summary_atom, const std::string& id) -> caf::result<caf::message> {
        const auto found = self->state.clusters.find(id);
        if (found == self->state.clusters.end()) {
          return caf::make_error(caf::sec::invalid_argument, "no cluster \"" + id + "\"");
        }
        return self->delegate(found->second.cluster_actor, summary_atom_v);
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
