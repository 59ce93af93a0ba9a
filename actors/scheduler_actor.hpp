// SchedulerActor: decides where requests go and commits the decisions by compare-and-set.
// Several may run at once on the same clusters: correctness comes only from the ClusterActors'
// compare-and-set, never from a lock shared between schedulers.
//
// A thin shell over SchedulerCore (cores/scheduler_core.hpp), which holds the logic: it
// subscribes to every cluster's ClusterActor, feeds the core each view change, and sends what
// the core returns (commits, releases, answers, updated decisions).
//
// Its protocol is SchedulerActor (actors/scheduler_interface.hpp). A refused replica placed again
// sends its submitter the request's SchedulingDecision as it then stands.
#pragma once

#include <caf/fwd.hpp>

#include <vector>

#include "actors/quota_interface.hpp"
#include "actors/scheduler_interface.hpp"
#include "actors/supervisor_interface.hpp"
#include "cores/scheduler_core.hpp"
#include "policy/framework.hpp"

namespace unisched::actors {

/// `clusters` names the clusters to schedule on (ids and topology); their ClusterActors are found
/// through `directory` (the supervisor). With a `quota` ledger, requests with a queue take its
/// budget first in each commit round (and wait, QUEUED, when over it).
SchedulerActor spawn_scheduler_actor(caf::actor_system& system,
                                     const ClusterDirectoryActor& directory,
                                     const std::vector<policy::ClusterInfo>& clusters,
                                     const policy::Policy& policy,
                                     const SchedulerSettings& settings,
                                     const QuotaActor& quota = {});

}  // namespace unisched::actors
