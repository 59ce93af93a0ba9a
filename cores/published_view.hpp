// The view of one cluster as a ClusterActor publishes it to schedulers: its nodes (the agent's
// truth with reservations on top), where it stands in the agent's stream (the position), how
// often it changed (the revision; each node holds the revision of its last change), and its
// recent changes for subscribers behind. Every change goes through publish() or replace(), so
// the revisions, the log and the view never disagree.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cores/view_change_log.hpp"
#include "model/cluster_view.hpp"
#include "model/version_gate.hpp"
#include "model/view_revision.hpp"
#include "model/view_update.hpp"

namespace unisched::actors {

class PublishedView {
 public:
  explicit PublishedView(std::string cluster_id) : cluster_id_(std::move(cluster_id)) {}

  /// Applies node changes (and shared resources, when set) as one new revision at `position`,
  /// kept for subscribers. Nothing changes when the view refuses them.
  std::optional<model::ViewProblem> publish(std::vector<model::SharedNodeChange> changes,
                                            const std::optional<model::ClusterResources>& resources,
                                            model::StreamPosition position);
  /// The same at the position the view holds (reservations made and dropped here).
  std::optional<model::ViewProblem> publish(std::vector<model::SharedNodeChange> changes) {
    return publish(std::move(changes), std::nullopt, position_);
  }
  /// Moves to `position` with nothing schedulers would see (an agent confirming a reservation).
  void advance(model::StreamPosition position) { position_ = position; }
  /// Replaces every node (a snapshot) as one new revision that every node holds; subscribers
  /// behind it need the whole view. Nothing changes when the view refuses the nodes.
  std::optional<model::ViewProblem> replace(
      const std::vector<std::shared_ptr<const model::NodeState>>& nodes,
      model::ClusterResources resources, model::StreamPosition position);

  /// Shares `node` in place of the equal state held for its name: nothing a reader sees
  /// changes, so no revision. False when no such node is held or its state differs.
  bool hold_equal(std::shared_ptr<const model::NodeState> node) {
    return view_.hold_equal(std::move(node));
  }

  /// View changes after `revision`, oldest first; nullopt when they are no longer kept (the
  /// subscriber needs the whole view then: see ViewChangeLog). Their node states are the view's
  /// own, shared.
  std::optional<std::vector<ViewChangeLog::Change>> changes_since(uint64_t revision) const {
    return log_.since(revision, revision_);
  }
  /// The view at the current revision (version = revision), copied out.
  model::ViewSnapshot snapshot() const;
  /// The same view sharing its node states: what subscribers in this process start from.
  std::shared_ptr<const model::ViewRevision> whole() const;
  /// What a subscriber whose copy is at `held` lacks: the last change when the copy is at it or
  /// one change behind it (a subscriber's feed brings it anyway), else the whole view.
  std::shared_ptr<const model::ViewRevision> catch_up(uint64_t held) const;

  const std::string& cluster_id() const { return cluster_id_; }
  const model::ClusterView& nodes() const { return view_; }
  model::StreamPosition position() const { return position_; }
  uint64_t revision() const { return revision_; }

 private:
  std::string cluster_id_;
  // No policy reads it (schedulers decide on views of their own), so it keeps no scheduling
  // indexes.
  model::ClusterView view_{model::ViewIndexes::NamesOnly};
  model::StreamPosition position_;
  uint64_t revision_ = 0;  // the view's; each node's is held with it (view_.revision_of)
  ViewChangeLog log_;      // for subscribers behind
};

}  // namespace unisched::actors
