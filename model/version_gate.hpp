// The version rule, in one place: every path that applies an update to a view asks it first.
// An agent numbers its updates 1, 2, 3, ... within an epoch (one run of the agent); update N
// applies to version N-1 and yields version N. Epochs increase from one run of an agent to the
// next (unisched's agents take the wall clock in nanoseconds when they start), so what an
// earlier run sent late is refused, never applied over a later run's view.
#pragma once

#include <cstdint>

namespace unisched::model {

/// A view's position in its agent's stream.
struct StreamPosition {
  uint64_t epoch = 0;    ///< 0: nothing received yet
  uint64_t version = 0;  ///< the last version applied
};

enum class UpdateVerdict {
  Apply,      ///< the next update in order: apply it
  Duplicate,  ///< already applied (or older): acknowledge and ignore
  Gap,        ///< something is missing, or the agent restarted: pull a full snapshot
  Malformed,  ///< not a valid position (version is not base + 1): refuse it
  Stale,      ///< from an earlier run of the agent (an older epoch than the view's): refuse it
};

/// Judges an update that takes the view of `epoch` from `base_version` to `version`.
UpdateVerdict judge_update(const StreamPosition& held, uint64_t epoch, uint64_t base_version,
                           uint64_t version);

/// Judges a change of a view's revisions, as a ClusterActor feeds a copy of its view (a
/// scheduler's): the same rule within one stream. That stream has no epochs: a copy of a new
/// ClusterActor starts from its whole view.
UpdateVerdict judge_revision(uint64_t held_revision, uint64_t base_revision, uint64_t revision);

/// Whether a full snapshot at (`epoch`, `version`) may replace a view at `held`: a later epoch,
/// or the same epoch at the same or a later version. A snapshot of an earlier epoch, or of an
/// earlier version of this one, is stale.
bool snapshot_is_current(const StreamPosition& held, uint64_t epoch, uint64_t version);

}  // namespace unisched::model
