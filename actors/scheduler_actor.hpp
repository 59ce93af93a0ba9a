// SchedulerActor: decides where requests go and commits the decisions by compare-and-set.
// Several may run at once on the same clusters: correctness comes only from the ClusterActors'
// compare-and-set, never from a lock shared between schedulers.
//
// It subscribes to every cluster's ClusterActor and keeps a local copy of each view from that
// feed. Requests wait in a queue by priority (then arrival). For each: decide on the local
// copies (policy/pipeline), send each cluster its CommitRequest, and on a conflict refresh the
// stale copies and decide again, at most `max_retries` times. A gang's accepted reservations
// are released when any cluster refuses. Placements a cluster refuses later are placed again.
//
// Protocol:
//   (submit_atom, request_id, SchedulingRequestSpec) -> SchedulingDecision, once committed
//   (summary_atom)                                  -> SchedulerSummary
//   (join_atom, ClusterRegistration)                   schedule on this cluster too (hub mode)
#pragma once

#include <caf/fwd.hpp>

#include <chrono>
#include <string>
#include <vector>

#include "actors/cluster_state.hpp"
#include "policy/framework.hpp"

namespace unisched::actors {

struct SchedulerSettings {
  CommitMode commit_mode = CommitMode::ClusterRevision;
  int max_retries = 5;
  std::chrono::milliseconds commit_timeout{2000};
  /// Seeds the draws of a sampling or random-tie policy; 0: a seed of its own, at random.
  uint64_t draw_seed = 0;
};

/// `clusters` names the clusters to schedule on (ids and topology); their ClusterActors are found
/// through `supervisor`.
caf::actor spawn_scheduler_actor(caf::actor_system& system, const caf::actor& supervisor,
                                 const std::vector<policy::ClusterInfo>& clusters,
                                 const policy::Policy& policy, const SchedulerSettings& settings);

}  // namespace unisched::actors
