#include "cores/published_view.hpp"

#include <utility>

namespace unisched::actors {

std::optional<model::ViewProblem> PublishedView::publish(
    std::vector<model::SharedNodeChange> changes,
    const std::optional<model::ClusterResources>& resources, model::StreamPosition position) {
  // Each state is shared, not copied: the agent that published it (in this process), the view,
  // the log and every subscriber in this process hold the same one.
  auto entry = std::make_shared<model::ViewRevision>();
  entry->cluster_id = cluster_id_;
  entry->epoch = position.epoch;
  entry->base_revision = revision_;
  entry->revision = revision_ + 1;
  entry->changes = std::move(changes);
  for (model::SharedNodeChange& change : entry->changes) {
    change.revision = entry->revision;
  }
  if (auto problem = view_.apply(entry->changes, model::Allocation::MayExceed)) {
    return problem;
  }
  if (resources) {
    view_.set_resources(*resources);
  }
  position_ = position;
  ++revision_;
  entry->resources = resources;
  log_.record(std::move(entry), view_.size());
  return std::nullopt;
}

std::optional<model::ViewProblem> PublishedView::replace(
    const std::vector<std::shared_ptr<const model::NodeState>>& nodes,
    model::ClusterResources resources, model::StreamPosition position) {
  if (auto problem = view_.replace(nodes, std::move(resources), model::Allocation::MayExceed)) {
    return problem;
  }
  position_ = position;
  ++revision_;
  view_.visit_nodes([&](const model::NodeState& node) {
    view_.set_revision(node.name, revision_);
    return true;
  });
  log_.clear();
  return std::nullopt;
}

model::ViewSnapshot PublishedView::snapshot() const {
  model::ViewSnapshot snapshot;
  snapshot.cluster_id = cluster_id_;
  snapshot.epoch = position_.epoch;
  snapshot.version = revision_;
  snapshot.nodes.reserve(view_.size());
  view_.visit_held([&](const std::shared_ptr<const model::NodeState>& node, uint64_t revision) {
    snapshot.nodes.push_back(node);
    snapshot.node_revisions.emplace_hint(snapshot.node_revisions.end(), node->name, revision);
  });
  snapshot.resources = view_.resources();
  snapshot.agent_version = position_.version;
  return snapshot;
}

std::shared_ptr<const model::ViewRevision> PublishedView::catch_up(uint64_t held) const {
  if (auto last = log_.last_reaching(held, revision_)) {
    return last;
  }
  return whole();
}

std::shared_ptr<const model::ViewRevision> PublishedView::whole() const {
  auto whole = std::make_shared<model::ViewRevision>();
  whole->cluster_id = cluster_id_;
  whole->epoch = position_.epoch;
  whole->whole = true;
  whole->revision = revision_;
  whole->agent_version = position_.version;
  whole->changes.reserve(view_.size());
  view_.visit_held([&](const std::shared_ptr<const model::NodeState>& node, uint64_t revision) {
    whole->changes.push_back({model::NodeChangeKind::Add, node, revision});
  });
  whole->resources = view_.resources();
  return whole;
}

}  // namespace unisched::actors
