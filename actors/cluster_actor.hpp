// ClusterActor: one per cluster, holding its versioned view (cores/cluster_core) and talking.
// Its messages are typed in actors/cluster_interface.hpp. What they set in motion:
// - a pushed snapshot (an agent that starts over) is applied at once unless older than the view;
// - a subscriber gets the view now (version = the view's revision), then every change of the
//   view as a ViewFeed (the change log's shared entry) whose version is its revision, in
//   order, or a ClusterSnapshot when it must start over, and the cluster's health as (health,
//   cluster_id, healthy);
// - an accepted commit is reserved and sent to the agent as a PlacementOrder; a placement the
//   cluster later refuses goes back to its committer as a RefusedPlacement, one it carried out
//   as SettledPlacements;
// - a gap pulls a SnapshotRequest -> ClusterSnapshot from the agent, retried until it succeeds.
#pragma once

#include <caf/fwd.hpp>

#include <chrono>
#include <string>

#include "actors/cluster_interface.hpp"
#include "cores/update_rate_limit.hpp"

namespace unisched::actors {

struct ClusterActorSettings {
  std::chrono::milliseconds pull_timeout{2000};  ///< how long a snapshot pull may take
  std::chrono::milliseconds retry_backoff{200};  ///< pause before pulling again after a failure
  /// How often orders and releases the agent has not confirmed are sent again.
  std::chrono::milliseconds resend_interval{500};
  /// How long a scheduler may take to acknowledge a refusal before it is told again.
  std::chrono::milliseconds refusal_ack_timeout{1000};
  /// The most the agent may push: over it, updates are answered THROTTLED with a wait.
  UpdateRateLimits update_limits{kDefaultUpdatesPerSecond, kDefaultNodeChangesPerSecond};
  /// Far above what a cluster's changes need (a 5,000-node cluster whose nodes all change every
  /// 10 s makes 500 changes/s), far below what ties up the centre.
  static constexpr double kDefaultUpdatesPerSecond = 200;
  static constexpr double kDefaultNodeChangesPerSecond = 100'000;
};

/// The ClusterActor stops when `owner` (its supervisor, only watched) stops.
ClusterActor spawn_cluster_actor(caf::actor_system& system, const std::string& cluster_id,
                                 const AgentActor& agent, const caf::strong_actor_ptr& owner,
                                 const ClusterActorSettings& settings);

}  // namespace unisched::actors
