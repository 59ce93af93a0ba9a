#include "actors/agent_state.hpp"

namespace unisched::actors {

AgentState::AgentState(std::shared_ptr<adapters::ClusterAdapter> adapter, uint64_t epoch)
    : adapter_(std::move(adapter)),
      cluster_id_(adapter_->profile().spec.cluster_id),
      epoch_(epoch) {}

void AgentState::observe() {
  ++counters_.observations;
  std::vector<model::NodeChange> changes;
  if (!listed_) {
    // The first observation starts from the full list; later ones from the change feed.
    for (model::NodeState& node : adapter_->list_nodes()) {
      changes.push_back(model::NodeChange{model::NodeChangeKind::Add, std::move(node)});
    }
    listed_ = true;
  }
  for (model::NodeChange& change : adapter_->poll_changes()) {
    changes.push_back(std::move(change));
  }
  const uint64_t coalesced_before = pending_.coalesced();
  for (const model::NodeChange& change : changes) {
    pending_.record(change, published_.count(change.node.name) != 0);
  }
  counters_.changes_seen += changes.size();
  counters_.coalesced += pending_.coalesced() - coalesced_before;
}

std::optional<model::ViewUpdate> AgentState::next_update() {
  model::ClusterResources resources = adapter_->resources();
  const bool resources_changed = resources != published_resources_;
  if (pending_.empty() && !resources_changed) {
    return std::nullopt;
  }
  model::ViewUpdate update;
  update.cluster_id = cluster_id_;
  update.epoch = epoch_;
  update.base_version = version_;
  update.version = ++version_;
  update.changes = pending_.take();
  for (const model::NodeChange& change : update.changes) {
    if (change.kind == model::NodeChangeKind::Remove) {
      published_.erase(change.node.name);
    } else {
      published_[change.node.name] = change.node;
    }
  }
  if (resources_changed) {
    published_resources_ = resources;
    update.resources = std::move(resources);
  }
  ++counters_.updates_built;
  counters_.deltas_sent += update.changes.size();
  return update;
}

model::ViewSnapshot AgentState::snapshot() {
  ++counters_.snapshots;
  model::ViewSnapshot snapshot;
  snapshot.cluster_id = cluster_id_;
  snapshot.epoch = epoch_;
  snapshot.version = version_;
  snapshot.nodes.reserve(published_.size());
  for (const auto& [name, node] : published_) {
    snapshot.nodes.push_back(node);
  }
  snapshot.resources = published_resources_;
  return snapshot;
}

}  // namespace unisched::actors
