// What travels from a metadata agent to the centre, in model terms: an incremental update
// between two versions, or a full snapshot at one version. messages/ converts these to and from
// the protobuf schema at the edges.
//
// An update's node states are shared and read-only: in one process the agent that published a
// state, the centre's view and every scheduler's view hold that one state between them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/node_state.hpp"
#include "model/node_usage.hpp"
#include "model/reservation.hpp"

namespace unisched::model {

enum class HealthState { Unknown, Healthy, Degraded, Unhealthy };

/// The most node changes one update may carry. An agent with more to say (its first listing of
/// a large cluster) splits them over consecutive versions; a receiver refuses larger updates, so
/// the cost of applying one (copies, conversion, the centre's time before it acks) stays bounded.
/// Whole clusters travel as snapshots.
inline constexpr size_t kMaxNodeChangesPerUpdate = 10'000;

/// One node added, replaced or removed, its new state shared and read-only.
struct SharedNodeChange {
  NodeChangeKind kind = NodeChangeKind::Update;
  std::shared_ptr<const NodeState> node;  ///< never null; of a removal only the name counts
  /// The view revision at which the node took this state, as the centre numbers them; 0 in an
  /// agent's update (the centre numbers the states it publishes).
  uint64_t revision = 0;
  /// Set by an agent when only what the node's pods use changed since the state it sent
  /// before: a link then carries the usage alone. In one process the state is shared anyway.
  bool usage_only = false;
};

/// A node the centre does not hold because its own record is unusable (see NodeAdmission).
struct LeftOutNode {
  std::string name;
  std::string reason;  ///< a sentence naming the node (quoted) and what is wrong with it
};

/// The change with its state made shared (moved, not copied).
SharedNodeChange share(NodeChange change);

struct ViewUpdate {
  std::string cluster_id;
  uint64_t epoch = 0;         ///< the agent's run; versions restart with each
  uint64_t base_version = 0;  ///< the version this update applies to
  uint64_t version = 0;       ///< the version after it: base_version + 1
  std::vector<SharedNodeChange> changes;
  /// Nodes whose usage alone changed, as read from a link (never a node `changes` names): the
  /// centre puts each on the node's state as this agent last sent it.
  std::vector<NodeUsage> usage_changes;
  std::optional<ClusterResources> resources;  ///< set when the shared resources changed
  HealthState health = HealthState::Healthy;
  /// Placements the cluster carried out; their resources show in `changes` (this update or an
  /// earlier one).
  std::vector<std::string> applied_placements;
  /// Placements the cluster refused, with the reason.
  std::vector<std::pair<std::string, std::string>> refused_placements;
  /// Placements whose work ended; their resources are free again in `changes` (or later).
  std::vector<std::string> finished_placements;
  /// Nodes whose states could not be read (a field out of range): the centre holds none of them.
  std::vector<LeftOutNode> left_out;
};

struct ViewSnapshot {
  std::string cluster_id;
  uint64_t epoch = 0;
  uint64_t version = 0;
  /// Shared and read-only, as an update's: in one process a snapshot hands the holder's own
  /// states over, and the view that takes it holds them (no copy of a node).
  std::vector<std::shared_ptr<const NodeState>> nodes;
  ClusterResources resources;
  /// From an agent: placements running now, and recent refusals. From the centre: empty.
  std::vector<std::string> applied_placements;
  std::vector<std::pair<std::string, std::string>> refused_placements;
  /// From an agent: placements whose work ended recently (told again in case the update that
  /// first told it was lost).
  std::vector<std::string> finished_placements;
  /// From the centre: the revision at which each node last changed (for node-level commits),
  /// and the agent version the view reflects (`version` is then the view's revision).
  std::map<std::string, uint64_t> node_revisions;
  uint64_t agent_version = 0;
  /// Nodes whose states could not be read (a field out of range): the centre holds none of them.
  std::vector<LeftOutNode> left_out;
};

}  // namespace unisched::model
