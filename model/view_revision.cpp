#include "model/view_revision.hpp"

namespace unisched::model {

ViewRevision as_revision(ViewUpdate update) {
  ViewRevision revision;
  revision.cluster_id = std::move(update.cluster_id);
  revision.epoch = update.epoch;
  revision.base_revision = update.base_version;
  revision.revision = update.version;
  revision.changes = std::move(update.changes);
  for (SharedNodeChange& change : revision.changes) {
    change.revision = update.version;
  }
  revision.resources = std::move(update.resources);
  return revision;
}

ViewRevision as_revision(ViewSnapshot snapshot) {
  ViewRevision revision;
  revision.cluster_id = std::move(snapshot.cluster_id);
  revision.epoch = snapshot.epoch;
  revision.whole = true;
  revision.revision = snapshot.version;
  revision.agent_version = snapshot.agent_version;
  revision.changes.reserve(snapshot.nodes.size());
  for (auto& node : snapshot.nodes) {
    const auto numbered = snapshot.node_revisions.find(node->name);
    const uint64_t at = numbered == snapshot.node_revisions.end() ? 0 : numbered->second;
    revision.changes.push_back({NodeChangeKind::Add, std::move(node), at});
  }
  revision.resources = std::move(snapshot.resources);
  return revision;
}

ViewUpdate to_update(const ViewRevision& revision) {
  ViewUpdate update;
  update.cluster_id = revision.cluster_id;
  update.epoch = revision.epoch;
  update.base_version = revision.base_revision;
  update.version = revision.revision;
  update.changes = revision.changes;
  for (SharedNodeChange& change : update.changes) {
    change.usage_only = false;  // a subscriber is sent whole states (messages/view_feed)
  }
  update.resources = revision.resources;
  return update;
}

ViewSnapshot to_snapshot(const ViewRevision& revision) {
  ViewSnapshot snapshot;
  snapshot.cluster_id = revision.cluster_id;
  snapshot.epoch = revision.epoch;
  snapshot.version = revision.revision;
  snapshot.agent_version = revision.agent_version;
  snapshot.nodes.reserve(revision.changes.size());
  for (const SharedNodeChange& change : revision.changes) {
    snapshot.nodes.push_back(change.node);
    snapshot.node_revisions.emplace(change.node->name, change.revision);
  }
  snapshot.resources = revision.resources.value_or(ClusterResources{});
  return snapshot;
}

}  // namespace unisched::model
