#include "cores/view_change_log.hpp"

#include <algorithm>

namespace unisched::actors {

void ViewChangeLog::record(Change change, size_t view_nodes) {
  const size_t budget = node_budget(view_nodes);
  if (change->changes.size() > budget) {
    clear();
    return;
  }
  node_changes_ += change->changes.size();
  changes_.push_back(std::move(change));
  while (!changes_.empty() && (changes_.size() > kLength || node_changes_ > budget)) {
    node_changes_ -= changes_.front()->changes.size();
    changes_.pop_front();
  }
}

void ViewChangeLog::clear() {
  changes_.clear();
  node_changes_ = 0;
}

std::optional<std::vector<ViewChangeLog::Change>> ViewChangeLog::since(uint64_t revision,
                                                                       uint64_t current) const {
  std::vector<Change> missed;
  if (revision >= current) {
    return missed;
  }
  if (changes_.empty() || changes_.front()->base_revision > revision) {
    return std::nullopt;
  }
  const Change& last = changes_.back();
  // One change behind, the common case, needs no search.
  if (revision >= last->base_revision && revision < last->revision) {
    missed.push_back(last);
    return missed;
  }
  // The log is in revision order: the subscriber's place in it is found, not walked to (each
  // change was a walk of up to kLength entries, per subscriber).
  const auto after =
      std::upper_bound(changes_.begin(), changes_.end(), revision,
                       [](uint64_t seen, const Change& entry) { return seen < entry->revision; });
  missed.assign(after, changes_.end());
  return missed;
}

ViewChangeLog::Change ViewChangeLog::last_reaching(uint64_t held, uint64_t current) const {
  if (changes_.empty()) {
    return nullptr;
  }
  const Change& last = changes_.back();
  if (last->revision == current && held >= last->base_revision && held <= last->revision) {
    return last;
  }
  return nullptr;
}

}  // namespace unisched::actors
