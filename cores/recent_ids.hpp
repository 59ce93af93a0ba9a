// The last N distinct ids seen, oldest first: what an agent or a ClusterActor remembers to answer
// a repeated message (an order, a commit) the way it answered the first. Plain C++.
#pragma once

#include <deque>
#include <string>

#include <absl/container/flat_hash_set.h>

namespace unisched::actors {

class RecentIds {
 public:
  explicit RecentIds(size_t capacity) : capacity_(capacity) {}

  /// Remembers `id`, forgetting the oldest past the capacity; false when it was remembered.
  bool insert(const std::string& id) {
    if (!ids_.insert(id).second) {
      return false;
    }
    order_.push_back(id);
    if (order_.size() > capacity_) {
      ids_.erase(order_.front());
      order_.pop_front();
    }
    return true;
  }
  bool contains(const std::string& id) const { return ids_.count(id) > 0; }
  /// Oldest first.
  const std::deque<std::string>& in_order() const { return order_; }

 private:
  size_t capacity_;
  // Hashed: a ClusterActor asks on every commit, and ordered sets of ids that share a long
  // prefix ("client-3-...") spent their time comparing it (9% of a `schedule` run).
  absl::flat_hash_set<std::string> ids_;
  std::deque<std::string> order_;
};

}  // namespace unisched::actors
