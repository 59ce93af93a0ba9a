// Metadata agent actor: sits beside its cluster, owns the adapter (through actors/agent_state),
// observes it every observe interval and pushes coalesced incremental updates to the cluster's
// ClusterActor every push interval.
//
// Protocol:
//   SnapshotRequest        -> ClusterSnapshot (the state as of the agent's last update)
//   HealthProbe            -> HealthStatus (with the agent's epoch and version)
//   (bind_atom, actor)        where to push (after the ClusterActor was restarted)
//   PlacementOrder            carry placements out through the adapter; reported with the
//                             next updates as applied or refused
//   ReleaseOrder              the work of these placements finished: free their resources
//   (online_atom, bool)       false: the agent is cut off (a network partition): it keeps
//                             observing, but pushes and answers nothing until true again
#pragma once

#include <caf/fwd.hpp>

#include <chrono>
#include <memory>

namespace unisched::adapters {
class ClusterAdapter;
}

namespace unisched::actors {

struct AgentSettings {
  std::chrono::milliseconds observe_interval{100};
  std::chrono::milliseconds push_interval{1000};
  std::chrono::milliseconds push_timeout{2000};  ///< how long to wait for an Ack
};

/// `epoch` must differ from any earlier run's for the same cluster.
caf::actor spawn_agent_actor(caf::actor_system& system,
                             std::shared_ptr<adapters::ClusterAdapter> adapter, uint64_t epoch,
                             const AgentSettings& settings);

}  // namespace unisched::actors
