// Supervisor: the registry of clusters and the judge of their health. It probes each agent on an
// interval; after `max_misses` unanswered probes the cluster is unhealthy (no placements there);
// when the agent answers again, the cluster is resynced in full before it counts as healthy.
// It monitors every ClusterActor and restarts one that dies, rebuilding it from a full snapshot;
// the ClusterActors stop with the supervisor, wherever they run.
//
// Each cluster's lifecycle (cores/supervisor_core.hpp, which holds the rules) is logged at
// every transition.
//
// Its protocol is SupervisorActor (actors/supervisor_interface.hpp). Clusters that start after
// a shard joined go to shards by rendezvous hashing (to this node when there is none); a lost
// shard's clusters are restarted on their next home and rebuilt from full snapshots. The agent
// learns its ClusterActor as (bind, cluster, endpoint): endpoint is the shard's HOST:PORT (empty
// for this node), so it can push to the shard directly.
#pragma once

#include <caf/fwd.hpp>

#include <chrono>

#include "actors/cluster_actor.hpp"
#include "actors/supervisor_interface.hpp"
#include "cores/supervisor_core.hpp"

namespace unisched::actors {

struct SupervisorSettings {
  std::chrono::milliseconds probe_interval{500};
  std::chrono::milliseconds probe_timeout{400};
  int max_misses = 3;  ///< unanswered probes in a row that make a cluster unhealthy
  std::chrono::milliseconds resync_timeout{5000};
  std::chrono::milliseconds spawn_timeout{3000};  ///< for a shard to start a ClusterActor
  ClusterActorSettings cluster;
};

SupervisorActor spawn_supervisor(caf::actor_system& system, const SupervisorSettings& settings);

}  // namespace unisched::actors
