// Metadata agent actor: sits beside its cluster, owns the adapter (through actors/agent_state),
// observes it every observe interval and pushes coalesced incremental updates to the cluster's
// ClusterActor every push interval.
//
// Protocol:
//   SnapshotRequest        -> ClusterSnapshot (the state as of the agent's last update)
//   HealthProbe            -> HealthStatus (with the agent's epoch and version)
//   (bind_atom, actor)        where to push (after the ClusterActor was restarted)
//   (bind_atom, actor, endpoint)  the same, hosted by the shard at endpoint (HOST:PORT; empty
//                             for the hub), which the agent then connects to directly
//   PlacementOrder            carry placements out through the adapter; reported with the
//                             next updates as applied or refused
//   ReleaseOrder              the work of these placements finished: free their resources
//   (online_atom, bool)       false: the agent is cut off (a network partition): it keeps
//                             observing, but pushes and answers nothing until true again
#pragma once

#include <caf/fwd.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>

namespace unisched::adapters {
class ClusterAdapter;
}

namespace unisched::actors {

struct AgentSettings {
  std::chrono::milliseconds observe_interval{100};
  std::chrono::milliseconds push_interval{1000};
  std::chrono::milliseconds push_timeout{2000};  ///< how long to wait for an Ack
  /// Opens a direct connection to a shard's HOST:PORT (set by processes that have a network).
  std::function<void(const std::string&)> connect_directly;
};

/// `epoch` must differ from any earlier run's for the same cluster.
caf::actor spawn_agent_actor(caf::actor_system& system,
                             std::shared_ptr<adapters::ClusterAdapter> adapter, uint64_t epoch,
                             const AgentSettings& settings);

}  // namespace unisched::actors
