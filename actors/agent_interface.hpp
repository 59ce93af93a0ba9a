// The metadata agent's protocol, checked by the compiler: every agent (actors/agent_actor, and
// actors/grpc_agent_proxy standing in for an agent that speaks gRPC) implements AgentActor, and
// ClusterIngestActor is what an agent pushes its cluster's changes to (its ClusterActor).
#pragma once

#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include <string>

#include "messages/caf_types.hpp"

namespace unisched::actors {

/// A ClusterActor as its agent sees it.
///   AgentUpdate                  -> Ack (applied, duplicate, gap or rejected with a reason);
///                                   an IncrementalUpdate on a link, the agent's own in one
///                                   process
///   (push, AgentSnapshot)        -> Ack: the agent's whole state as it starts over (a
///                                   ClusterSnapshot on a link, the agent's own in one process)
using ClusterIngestActor =
    caf::typed_actor<caf::replies_to<messages::AgentUpdate>::with<v1::Ack>,
                     caf::replies_to<atoms::push_atom, messages::AgentSnapshot>::with<v1::Ack>>;

/// An agent as the centre sees it.
///   SnapshotRequest               -> AgentSnapshot (the state as of its last update; a part
///                                    of it when SnapshotRequest.part says so)
///   HealthProbe                   -> HealthStatus (with the agent's epoch and version)
///   (bind, cluster, endpoint)        where to push from now on; endpoint is HOST:PORT of the
///                                    shard hosting that ClusterActor (empty: the hub), which
///                                    the agent then connects to directly
///   PlacementOrder                   carry these placements out; reported with later updates
///   ReleaseOrder                     the work of these placements finished: free them
using AgentActor =
    caf::typed_actor<caf::replies_to<v1::SnapshotRequest>::with<messages::AgentSnapshot>,
                     caf::replies_to<v1::HealthProbe>::with<v1::HealthStatus>,
                     caf::reacts_to<atoms::bind_atom, ClusterIngestActor, std::string>,
                     caf::reacts_to<v1::PlacementOrder>, caf::reacts_to<v1::ReleaseOrder>>;

}  // namespace unisched::actors
