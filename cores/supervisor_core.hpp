// The supervisor's judgement without the actor: each cluster's lifecycle, moved by probe answers
// and misses, resync outcomes, a lost agent and a restarted ClusterActor; and where a cluster's
// ClusterActor lives (rendezvous hashing over the shards). Plain C++: every call returns the
// commands the actor carries out, transitions to log included, so the rules are table-tested.
//
// Lifecycle of a cluster:
//   Registering -> Resyncing -> Healthy <-> Suspect (missed a probe) -> Unhealthy -> Resyncing
//   any -> Lost (the agent actor is gone); Lost -> Registering (its agent registered again)
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/version_gate.hpp"

namespace unisched::actors {

/// How much of an agent's reason for answering UNHEALTHY is kept and logged (it is free text
/// from outside, up to a whole message long).
inline constexpr size_t kMaxTroubleBytes = 256;

enum class Lifecycle { Registering, Resyncing, Healthy, Suspect, Unhealthy, Lost };

const char* describe(Lifecycle state);

struct SupervisorCommand {
  enum class Kind {
    Transition,      ///< log `from` -> `to` because `why`
    ReportPosition,  ///< tell the ClusterActor where its agent stands (`position`)
    Resync,          ///< ask the ClusterActor to resync: at `position`, or in full when unset
    SetHealth,       ///< tell the ClusterActor whether it may take work (`healthy`)
  };
  Kind kind = Kind::Transition;
  std::string cluster;
  Lifecycle from = Lifecycle::Registering;
  Lifecycle to = Lifecycle::Registering;
  std::string why;
  std::optional<model::StreamPosition> position;
  bool healthy = false;
};

using SupervisorCommands = std::vector<SupervisorCommand>;

class SupervisorCore {
 public:
  explicit SupervisorCore(int max_misses) : max_misses_(max_misses) {}

  /// What an agent's registration of a cluster comes to.
  enum class Admission {
    New,                ///< an unknown cluster: add() it and start its ClusterActor
    BindAgain,          ///< its registered agent again (the answer or the bind was lost)
    Readmit,            ///< its agent was lost or exited: the new agent takes its place
    AlreadyRegistered,  ///< another agent while the registered one lives: refused
    BeingRehomed,       ///< its ClusterActor is starting on a new home: try again
  };
  /// `same_agent`: the registering agent is the one registered; `cluster_actor_running`: its
  /// ClusterActor runs (is not being started on a new home).
  Admission admission(const std::string& cluster, bool same_agent,
                      bool cluster_actor_running) const;

  /// A new cluster, registering. False when it is known already.
  bool add(const std::string& cluster);
  bool knows(const std::string& cluster) const { return clusters_.count(cluster) > 0; }
  /// Its state; Lost for a cluster it does not know.
  Lifecycle state(const std::string& cluster) const;
  /// The clusters to probe now: all but the lost.
  std::vector<std::string> to_probe() const;

  /// Its agent answered a probe from `position`; `trouble` is why it says it cannot see its
  /// cluster (an UNHEALTHY answer), which makes the cluster unhealthy as a miss would.
  SupervisorCommands on_probe_answer(const std::string& cluster, model::StreamPosition position,
                                     const std::string& trouble = {});
  /// A probe went unanswered.
  SupervisorCommands on_probe_miss(const std::string& cluster);
  /// A resync the commands asked for ended (the view is at `version`), or failed.
  SupervisorCommands on_resync_done(const std::string& cluster, uint64_t version);
  SupervisorCommands on_resync_failed(const std::string& cluster, const std::string& reason);
  /// Its agent actor is gone.
  SupervisorCommands on_agent_lost(const std::string& cluster, const std::string& reason);
  /// A lost cluster's agent registered again: registering, until a probe tells where it stands.
  SupervisorCommands on_agent_returned(const std::string& cluster);
  /// Its ClusterActor was restarted on a new home: rebuilt from a full snapshot.
  SupervisorCommands on_cluster_actor_restarted(const std::string& cluster);

  /// A shard offers to host ClusterActors started from now on. False when it is known.
  bool add_shard(const std::string& shard) { return shards_.insert(shard).second; }
  /// A shard is gone, or could not host a cluster: no ClusterActor starts there any more.
  void drop_shard(const std::string& shard) { shards_.erase(shard); }
  /// Where the cluster's ClusterActor starts: its shard by choose_home; nullopt: this node (no
  /// shard is left).
  std::optional<std::string> home_of(const std::string& cluster) const {
    return choose_home(shards_, cluster);
  }
  /// The shard that hosts `cluster` (highest random weight: losing a shard moves only its
  /// clusters); nullopt when there is no shard.
  static std::optional<std::string> choose_home(const std::set<std::string>& shards,
                                                const std::string& cluster);

 private:
  struct Entry {
    Lifecycle state = Lifecycle::Registering;
    int misses = 0;
    bool agent_gone = false;  // its registered agent exited: a new one may take its place
  };
  void transition(const std::string& cluster, Entry& entry, Lifecycle next, std::string why,
                  SupervisorCommands& out);
  static SupervisorCommand resync(const std::string& cluster,
                                  std::optional<model::StreamPosition> position);
  static SupervisorCommand set_health(const std::string& cluster, bool healthy);

  int max_misses_;
  std::map<std::string, Entry> clusters_;
  std::set<std::string> shards_;
};

}  // namespace unisched::actors
