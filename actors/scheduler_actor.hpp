// SchedulerActor: decides where requests go and commits the decisions by compare-and-set.
// Several may run at once on the same clusters: correctness comes only from the ClusterActors'
// compare-and-set, never from a lock shared between schedulers.
//
// A thin shell over SchedulerState (actors/scheduler_state.hpp), which holds the logic: it
// subscribes to every cluster's ClusterActor, feeds the core each view change, and sends what
// the core returns (commits, releases, answers, updated decisions).
//
// Protocol:
//   (submit_atom, request_id, SchedulingRequestSpec) -> SchedulingDecision, once committed;
//                                      later, a refused replica placed again sends the sender
//                                      the request's SchedulingDecision as it then stands
//   (summary_atom)                                  -> SchedulerSummary
//   (join_atom, ClusterRegistration)                   schedule on this cluster too (hub mode)
//   RefusedPlacement, SettledPlacements                from ClusterActors about its placements
#pragma once

#include <caf/fwd.hpp>

#include <vector>

#include "actors/scheduler_state.hpp"
#include "policy/framework.hpp"

namespace unisched::actors {

/// `clusters` names the clusters to schedule on (ids and topology); their ClusterActors are found
/// through `supervisor`.
caf::actor spawn_scheduler_actor(caf::actor_system& system, const caf::actor& supervisor,
                                 const std::vector<policy::ClusterInfo>& clusters,
                                 const policy::Policy& policy, const SchedulerSettings& settings);

}  // namespace unisched::actors
