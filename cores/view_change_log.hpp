// The recent changes of a ClusterActor's view, kept for subscribers that ask for what they
// missed since a revision. Bounded by count and by node changes: a subscriber further behind
// than the log reaches gets the whole view, which costs no more than replaying that much.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "model/view_revision.hpp"

namespace unisched::actors {

class ViewChangeLog {
 public:
  /// At most this many changes, holding at most an eighth of the view's nodes in node changes
  /// (but always kNodes).
  static constexpr size_t kLength = 256;
  static constexpr size_t kNodes = 1024;

  using Change = std::shared_ptr<const model::ViewRevision>;

  /// Keeps `change`, the newest, of a view of `view_nodes` nodes; a change larger than the
  /// whole budget (a listing) empties the log instead: whoever is behind it needs the view.
  void record(Change change, size_t view_nodes);
  /// Forgets every change (the view was replaced whole).
  void clear();

  /// The changes after `revision` up to `current`, oldest first; nullopt when they are no
  /// longer kept.
  std::optional<std::vector<Change>> since(uint64_t revision, uint64_t current) const;
  /// The newest change when it brings a copy at `held` to `current`; null otherwise.
  Change last_reaching(uint64_t held, uint64_t current) const;

 private:
  static size_t node_budget(size_t view_nodes) { return std::max(kNodes, view_nodes / 8); }

  std::deque<Change> changes_;  // shared with the readers
  size_t node_changes_ = 0;     // node changes in changes_
};

}  // namespace unisched::actors
