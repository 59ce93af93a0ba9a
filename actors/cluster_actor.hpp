// ClusterActor: one per cluster, holding its versioned view (actors/cluster_state) and talking.
//
// Protocol (all replies are protobuf messages from messages/unisched.proto):
//   IncrementalUpdate                 -> Ack (applied, duplicate, gap or rejected with a reason)
//   (push_atom, ClusterSnapshot)      -> Ack: the agent's whole state, pushed as it starts over
//                                        (applied at once unless older than the view)
//   (view_atom)                       -> ClusterSnapshot of the view
//   (summary_atom)                    -> ClusterSummary (counters)
//   (subscribe_atom, actor)           -> ClusterSnapshot now (version = the view's revision);
//                                        afterwards the subscriber receives every change of the
//                                        view as an IncrementalUpdate whose version is its
//                                        revision, in order, or a ClusterSnapshot when it must
//                                        start over
//   (resync_atom)                     -> Ack once a full snapshot was pulled and applied
//   (resync_atom, epoch, version)     -> Ack at once if the view is at that position, else
//                                        after a full snapshot was pulled and applied
//   (health_atom, bool)                  set by the supervisor; unhealthy clusters take no work;
//                                        subscribers get (health_atom, cluster_id, bool)
//   CommitRequest                     -> CommitReply; an accepted commit is reserved and sent to
//                                        the agent as a PlacementOrder; a placement the cluster
//                                        later refuses goes back to the committer as a
//                                        RefusedPlacement
//   ReleaseOrder                         drops reservations (a gang that did not commit)
//   (position_atom, epoch, version)      the agent's position from a probe (finds lost updates)
//   (bind_atom, actor)                   the agent to pull snapshots from
// A gap pulls a SnapshotRequest -> ClusterSnapshot from the agent, retried until it succeeds.
#pragma once

#include <caf/fwd.hpp>

#include <chrono>
#include <string>

namespace unisched::actors {

struct ClusterActorSettings {
  std::chrono::milliseconds pull_timeout{2000};  ///< how long a snapshot pull may take
  std::chrono::milliseconds retry_backoff{200};  ///< pause before pulling again after a failure
};

/// The ClusterActor stops when `owner` (its supervisor) stops.
caf::actor spawn_cluster_actor(caf::actor_system& system, const std::string& cluster_id,
                               const caf::actor& agent, const caf::actor& owner,
                               const ClusterActorSettings& settings);

}  // namespace unisched::actors
