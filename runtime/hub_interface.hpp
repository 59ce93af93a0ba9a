// The hub's protocol, checked by the compiler: what `unisched serve` publishes, and what
// agents, shards and clients (CLI, gRPC service) talk to (runtime/hub.hpp says more). It lives
// beside the hub; the actors it names have their interfaces in actors/.
#pragma once

#include <string>

#include "actors/quota_interface.hpp"
#include "actors/scheduler_interface.hpp"
#include "actors/supervisor_interface.hpp"

namespace unisched::runtime {

///   (register, ClusterRegistration, agent)  -> ClusterActor of the admitted cluster
///   (shard, ShardRegistration, shard)       -> ShardRegistration as admitted
///   (clusters)                              -> ClusterList
///   (nodes, cluster_id, from_agents)        -> ClusterViews ("" for every cluster)
///   ManifestSubmission                      -> SubmissionReply
///   (requests)                              -> RequestList
///   (requests, id, wait)                    -> RequestStatus; with wait, once decided
///   (quotas)                                -> QuotaList (every quota, used and waiting)
///   SchedulingDecision                         a scheduler's later change to a decision
///   FinishedPlacements                         work that ended: recorded, its quota freed
///   (reconcile)                                its own timer: ask clusters about placements
///                                              no scheduler follows any more
using HubActor = actors::DecisionListenerActor::extend_with<actors::PlacementListenerActor>::extend<
    caf::replies_to<atoms::register_atom, v1::ClusterRegistration,
                    actors::AgentActor>::with<actors::ClusterActor>,
    caf::replies_to<atoms::shard_atom, v1::ShardRegistration,
                    actors::ShardActor>::with<v1::ShardRegistration>,
    caf::replies_to<atoms::clusters_atom>::with<v1::ClusterList>,
    caf::replies_to<atoms::nodes_atom, std::string, bool>::with<v1::ClusterViews>,
    caf::replies_to<v1::ManifestSubmission>::with<v1::SubmissionReply>,
    caf::replies_to<atoms::requests_atom>::with<v1::RequestList>,
    caf::replies_to<atoms::requests_atom, std::string, bool>::with<v1::RequestStatus>,
    caf::replies_to<atoms::quotas_atom>::with<v1::QuotaList>,
    caf::reacts_to<atoms::reconcile_atom>>;

}  // namespace unisched::runtime
