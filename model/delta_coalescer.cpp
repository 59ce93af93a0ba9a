#include "model/delta_coalescer.hpp"

#include <algorithm>

namespace unisched::model {

void DeltaCoalescer::record(const NodeChange& change, bool published) {
  auto [entry, inserted] = pending_.try_emplace(change.node.name);
  Pending& pending = entry->second;
  if (inserted) {
    pending.published = published;
  } else {
    ++coalesced_;
  }
  pending.present = change.kind != NodeChangeKind::Remove;
  if (pending.present) {
    pending.latest = change.node;
  }
}

std::vector<NodeChange> DeltaCoalescer::take(size_t limit) {
  std::vector<NodeChange> changes;
  changes.reserve(std::min(limit, pending_.size()));
  auto taken = pending_.begin();
  for (; taken != pending_.end() && changes.size() < limit; ++taken) {
    auto& [name, pending] = *taken;
    if (pending.published && pending.present) {
      changes.push_back(NodeChange{NodeChangeKind::Update, std::move(pending.latest)});
    } else if (pending.present) {
      changes.push_back(NodeChange{NodeChangeKind::Add, std::move(pending.latest)});
    } else if (pending.published) {
      NodeChange removal{NodeChangeKind::Remove, {}};
      removal.node.name = name;
      changes.push_back(std::move(removal));
    }  // added and removed within the interval: nothing to say
  }
  pending_.erase(pending_.begin(), taken);
  return changes;
}

}  // namespace unisched::model
