// Whether a ClusterActor's view needs its agent's whole state, and what waits for it: the
// updates held back while a snapshot is pulled (replayed in order once it is taken), and a
// position the agent reported ahead of the view (lost updates once a later report says so too).
// One pull at a time: a gap found while a pull is in flight waits for that pull.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>

#include "model/version_gate.hpp"
#include "model/view_update.hpp"

namespace unisched::actors {

class ViewResync {
 public:
  /// How many updates are held back while a snapshot is being pulled.
  static constexpr size_t kStashLength = 4096;

  /// The view needs the whole state (a gap, a returning agent, a new actor). True when nothing
  /// was needed or under way before: a new need, not one already being met.
  bool need();
  /// True when a needed pull goes out now (and is then in flight).
  bool start_pull();
  /// The pull in flight got no answer: it is needed again. A snapshot the agent pushed
  /// meanwhile may have met the need: then nothing is.
  void pull_failed();
  /// A snapshot could not be taken: the whole state is needed again.
  void snapshot_refused();
  /// The view took a snapshot: nothing is needed, and no report is behind it any longer.
  void snapshot_taken();
  /// Updates already carried the view past the snapshot: nothing is needed.
  void snapshot_passed();

  /// Holds an update back until the view follows it (dropped when kStashLength are held).
  void hold_back(model::ViewUpdate update);
  /// The first held-back update that follows `view` in order, taken out; those `view` passed or
  /// that can never apply are dropped on the way. Nullopt when none follows yet.
  std::optional<model::ViewUpdate> next_in_order(const model::StreamPosition& view);

  /// The agent reported where it stands. True when a version the view lacks is still lacking
  /// at a later report (the updates in between were lost, not in flight) and the whole state
  /// is newly needed.
  bool on_agent_position(const model::StreamPosition& view, const model::StreamPosition& agent);

  bool idle() const { return stage_ == Stage::Idle; }
  size_t held_back() const { return stash_.size(); }

 private:
  enum class Stage { Idle, Needed, InFlight };

  Stage stage_ = Stage::Idle;
  std::deque<model::ViewUpdate> stash_;
  std::optional<model::StreamPosition> lagging_;  // a position an agent reported ahead of the view
};

}  // namespace unisched::actors
