// Coalesces the node changes an agent observes within one push interval into at most one
// change per node: add+update is an add of the latest state, add+remove is nothing,
// update+remove is a remove, remove+add is an update.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/node_state.hpp"

namespace unisched::model {

class DeltaCoalescer {
 public:
  /// Records `change`; `published` says whether the node exists in the last pushed state.
  void record(const NodeChange& change, bool published);

  /// The pending changes, one per node in name order, and forgets them; at most `limit` of
  /// them, the rest staying pending.
  std::vector<NodeChange> take(size_t limit = SIZE_MAX);

  bool empty() const { return pending_.empty(); }
  size_t size() const { return pending_.size(); }
  /// Observed changes folded into another change of the same node since construction.
  uint64_t coalesced() const { return coalesced_; }

 private:
  struct Pending {
    bool published = false;  // the node exists in the last pushed state
    bool present = false;    // the node exists now
    NodeState latest;
  };
  std::map<std::string, Pending> pending_;
  uint64_t coalesced_ = 0;
};

}  // namespace unisched::model
