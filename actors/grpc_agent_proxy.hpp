// GrpcAgentProxy: stands in, inside the centre, for an agent that speaks gRPC (any language).
// To the supervisor and the ClusterActor it is the cluster's agent; to the gRPC service it is
// where the agent's calls go. The agent dials out only, so nothing is ever sent to it directly:
// what the centre wants from it rides on the answers to its own calls.
//
// Protocol (from the gRPC service):
//   (push_atom, IncrementalUpdate) -> Ack from the ClusterActor (sent as this agent), carrying
//                                     the placement and release orders queued for the agent
//   (push_atom, ClusterSnapshot)   -> Ack: answers the ClusterActor's pending snapshot pull (or
//                                     is kept for the next one)
//   (health_atom, HealthProbe)     -> HealthStatus: the agent's heartbeat; says whether a
//                                     snapshot is wanted
//   (reset_atom, ClusterSnapshot)  -> Ack from the ClusterActor: the agent starts over with this
//                                     whole state (the seed's door: version 1), applied at once;
//                                     snapshot pulls still waiting are answered with an error
// Protocol (from the centre, as an agent's):
//   HealthProbe     -> HealthStatus while the agent has called within `silence_limit`; else no
//                      answer, so the supervisor counts a miss
//   SnapshotRequest -> ClusterSnapshot once the agent pushes one
//   (bind_atom, actor, endpoint), PlacementOrder, ReleaseOrder
#pragma once

#include <caf/fwd.hpp>

#include <chrono>
#include <string>

#include "actors/agent_interface.hpp"

namespace unisched::actors {

struct GrpcAgentSettings {
  std::chrono::milliseconds silence_limit{3000};  ///< no call for this long: probes go unanswered
  std::chrono::milliseconds push_timeout{5000};   ///< for the ClusterActor's Ack
  /// The agent can carry no placement orders (it came through the seed's door); orders that
  /// reach it anyway are dropped with an error in the log.
  bool view_only = false;
};

/// The agent protocol (to the centre) and the gRPC service's calls.
using GrpcAgentProxyActor =
    AgentActor::extend<caf::replies_to<atoms::push_atom, v1::IncrementalUpdate>::with<v1::Ack>,
                       caf::replies_to<atoms::push_atom, v1::ClusterSnapshot>::with<v1::Ack>,
                       caf::replies_to<atoms::health_atom, v1::HealthProbe>::with<v1::HealthStatus>,
                       caf::replies_to<atoms::reset_atom, v1::ClusterSnapshot>::with<v1::Ack>>;

GrpcAgentProxyActor spawn_grpc_agent_proxy(caf::actor_system& system, const std::string& cluster_id,
                                           const GrpcAgentSettings& settings);

}  // namespace unisched::actors
