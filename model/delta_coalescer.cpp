#include "model/delta_coalescer.hpp"

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

std::vector<NodeChange> DeltaCoalescer::take() {
  std::vector<NodeChange> changes;
  changes.reserve(pending_.size());
  for (auto& [name, pending] : pending_) {
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
  pending_.clear();
  return changes;
}

}  // namespace unisched::model
