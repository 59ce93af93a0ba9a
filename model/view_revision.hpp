// One revision of the centre's view as its subscribers (schedulers) apply it, with node states
// shared rather than copied: in one process the centre's view, its change log and every
// scheduler's view hold the same immutable state of a node. messages/view_feed carries it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/node_state.hpp"
#include "model/view_update.hpp"

namespace unisched::model {

struct ViewRevision {
  std::string cluster_id;
  uint64_t epoch = 0;
  /// Every node of the view (the subscriber starts over), not the changes since base_revision.
  bool whole = false;
  uint64_t base_revision = 0;  ///< changes: the revision they apply to (revision - 1)
  uint64_t revision = 0;
  uint64_t agent_version = 0;                 ///< whole: the agent version the view reflects
  std::vector<SharedNodeChange> changes;      ///< whole: every node, as additions
  std::optional<ClusterResources> resources;  ///< whole: always set
};

/// The changes of an update read as a revision (its version the view's revision): how a feed
/// entry that crossed a link as an IncrementalUpdate is read back.
ViewRevision as_revision(ViewUpdate update);
/// A whole view from a snapshot (its version the view's revision, node revisions with it), its
/// states made shared.
ViewRevision as_revision(ViewSnapshot snapshot);

/// The same revision as the messages that cross a process boundary: an update sharing its
/// states, or a snapshot with them copied out.
ViewUpdate to_update(const ViewRevision& revision);
ViewSnapshot to_snapshot(const ViewRevision& revision);

}  // namespace unisched::model
