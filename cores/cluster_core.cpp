#include "cores/cluster_core.hpp"

#include <absl/container/btree_map.h>
#include <absl/container/btree_set.h>

#include <algorithm>
#include <string_view>
#include <unordered_set>

#include "model/printable.hpp"

namespace unisched::actors {

const char* describe(AckStatus status) {
  switch (status) {
    case AckStatus::Applied:
      return "applied";
    case AckStatus::Duplicate:
      return "duplicate";
    case AckStatus::Gap:
      return "gap";
    case AckStatus::Rejected:
      return "rejected";
  }
  return "unknown";
}

namespace {

/// The update's node changes as schedulers see them (reservations held on top), sorted by name;
/// the truths behind them go into the holdings. Settled nodes left in `touched` are seen too; a
/// settled node whose state the view already holds (by value) is left out, and the view holds
/// the update's state for it from then on. Reservations on removed nodes go into `lost`.
std::vector<model::SharedNodeChange> seen_changes(
    model::ViewUpdate& update, PublishedView& view, ReservationHoldings& holdings,
    std::set<std::string>& touched, std::vector<std::pair<std::string, std::string>>& lost,
    ReservationHoldings::Undo& undo) {
  // What schedulers see change: each node once (names are unique in an update, and a touched
  // node is one the update does not change).
  std::vector<model::SharedNodeChange> effective;
  effective.reserve(update.changes.size() + touched.size());
  for (model::SharedNodeChange& change : update.changes) {
    const std::string& name = change.node->name;
    const bool settled_here = touched.erase(name) > 0;
    if (change.kind == model::NodeChangeKind::Remove) {
      for (std::string& id : holdings.erase_on(name, &undo)) {
        lost.emplace_back(std::move(id), "node " + name + " left the cluster");
      }
      holdings.drop_truth(name, &undo);
      effective.push_back(std::move(change));
      continue;
    }
    model::SharedNodeChange seen{change.kind, change.node};
    if (holdings.holds_on(name)) {
      holdings.set_truth(name, change.node, &undo);
      seen.node = holdings.effective(change.node);
    } else {
      holdings.drop_truth(name, &undo);
    }
    // A reservation carried out: the agent's state is what the view already holds. The view
    // takes the agent's state at the same revision, so no decision taken on it conflicts.
    if (!(settled_here && seen.kind == model::NodeChangeKind::Update &&
          view.hold_equal(seen.node))) {
      effective.push_back(std::move(seen));
    }
  }
  for (const std::string& name : touched) {  // settled without a change of the node itself
    const auto truth = holdings.truth(name);
    if (truth == nullptr) {
      continue;
    }
    effective.push_back({model::NodeChangeKind::Update, holdings.effective(truth)});
    if (!holdings.holds_on(name)) {
      holdings.drop_truth(name, &undo);
    }
  }
  std::sort(effective.begin(), effective.end(),
            [](const model::SharedNodeChange& a, const model::SharedNodeChange& b) {
              return a.node->name < b.node->name;
            });
  return effective;
}

/// Turns each usage change of the update into a change of the node's whole state: the usage put
/// on the state the agent last sent (not on the view, which holds reservations on top). Why
/// not, when a usage names no node here or does not fit its node.
std::optional<std::string> resolve_usage(model::ViewUpdate& update, const model::ClusterView& view,
                                         const ReservationHoldings& holdings,
                                         const std::string& cluster_id) {
  update.changes.reserve(update.changes.size() + update.usage_changes.size());
  for (const model::NodeUsage& usage : update.usage_changes) {
    auto truth = holdings.truth(usage.name);
    if (truth == nullptr) {
      truth = view.shared(usage.name);
    }
    if (truth == nullptr) {
      return "node_deltas: usage of node \"" + usage.name + "\": cluster \"" + cluster_id +
             "\" has no such node (send its whole state with ADD)";
    }
    auto node = std::make_shared<model::NodeState>(*truth);
    if (auto problem = model::apply_usage(usage, *node)) {
      return "node_deltas: " + *problem;
    }
    update.changes.push_back({model::NodeChangeKind::Update, std::move(node)});
  }
  update.usage_changes.clear();
  return std::nullopt;
}

}  // namespace

UpdateOutcome ClusterCore::take_update(model::ViewUpdate& update) {
  if (update.cluster_id != cluster_id()) {
    ++counters_.rejected;
    return {AckStatus::Rejected, published_.position().version,
            "update for cluster \"" + update.cluster_id + "\" sent to \"" + cluster_id() + "\""};
  }
  deliveries_.confirm_ended(update.finished_placements, update.refused_placements);
  placements_.note_outcomes(update.finished_placements, update.refused_placements);
  switch (model::judge_update(published_.position(), update.epoch, update.base_version,
                              update.version)) {
    case model::UpdateVerdict::Malformed:
      ++counters_.rejected;
      return {AckStatus::Rejected, published_.position().version,
              "version " + std::to_string(update.version) + " of epoch " +
                  std::to_string(update.epoch) + " does not follow base version " +
                  std::to_string(update.base_version)};
    case model::UpdateVerdict::Stale:
      ++counters_.rejected;
      return {AckStatus::Rejected, published_.position().version,
              "epoch " + std::to_string(update.epoch) + " is older than epoch " +
                  std::to_string(published_.position().epoch) +
                  " of the view: an update of an earlier run of the agent"};
    case model::UpdateVerdict::Duplicate:
      ++counters_.duplicates;
      return {AckStatus::Duplicate, published_.position().version, {}};
    case model::UpdateVerdict::Gap:
      resync_.hold_back(std::move(update));
      if (resync_.need()) {
        ++counters_.gaps;
      }
      return {AckStatus::Gap, published_.position().version, {}};
    case model::UpdateVerdict::Apply:
      break;
  }
  UpdateOutcome outcome = apply(update);
  if (outcome.status == AckStatus::Applied) {
    replay_held_back();
    outcome.version = published_.position().version;
  }
  return outcome;
}

UpdateOutcome ClusterCore::on_update(model::ViewUpdate update) {
  UpdateOutcome outcome = take_update(update);
  outcome.effects = effects(PullNow::IfNeeded);
  return outcome;
}

UpdateOutcome ClusterCore::reject_update(std::string reason) {
  ++counters_.rejected;
  return {AckStatus::Rejected, published_.position().version, std::move(reason),
          effects(PullNow::IfNeeded)};
}

UpdateOutcome ClusterCore::apply(model::ViewUpdate& update) {
  const auto reject = [&](std::string reason) -> UpdateOutcome {
    ++counters_.rejected;
    return {AckStatus::Rejected, published_.position().version, std::move(reason)};
  };
  admission_.admit(
      update, [this](const std::string& name) { return published_.nodes().find(name) != nullptr; });
  if (auto problem = resolve_usage(update, published_.nodes(), holdings_, cluster_id())) {
    return reject(std::move(*problem));
  }
  std::unordered_set<std::string_view> names;
  names.reserve(update.changes.size());
  for (const model::SharedNodeChange& change : update.changes) {
    if (!names.insert(change.node->name).second) {
      return reject("node " + model::quoted_brief(change.node->name) +
                    " changes twice in one update");
    }
    // Admission judged every named node; one without a name cannot be left out by name.
    if (change.kind != model::NodeChangeKind::Remove && change.node->name.empty()) {
      return reject(model::check_node(*change.node)->to_string());
    }
  }
  // Nothing changes unless the whole update applies: what the holdings change is put back.
  ReservationHoldings::Undo undo;
  std::set<std::string> touched;
  holdings_.settle(update.applied_placements, update.refused_placements, update.finished_placements,
                   touched, &undo);
  deliveries_.note_running(update.applied_placements);
  std::vector<std::pair<std::string, std::string>> lost;
  std::vector<model::SharedNodeChange> effective =
      seen_changes(update, published_, holdings_, touched, lost, undo);
  const model::StreamPosition after{update.epoch, update.version};
  // An update schedulers would see nothing of (an agent confirming what was reserved) is no
  // new revision: a decision taken on the reserved state still commits.
  if (effective.empty() && !update.resources.has_value()) {
    published_.advance(after);
  } else if (auto problem = published_.publish(std::move(effective), update.resources, after)) {
    holdings_.restore(std::move(undo));
    return reject(problem->to_string());
  }
  placements_.note_running(update.applied_placements);
  placements_.note_outcomes({}, lost);
  counters_.placements_confirmed += update.applied_placements.size();
  counters_.placements_refused += update.refused_placements.size() + lost.size();
  refused_.insert(refused_.end(), update.refused_placements.begin(),
                  update.refused_placements.end());
  refused_.insert(refused_.end(), lost.begin(), lost.end());
  ++counters_.updates_applied;
  counters_.deltas_applied += update.changes.size();
  return {AckStatus::Applied, published_.position().version, {}};
}

void ClusterCore::replay_held_back() {
  while (auto next = resync_.next_in_order(published_.position())) {
    apply(*next);  // a refused one is dropped: the view stays where it was
  }
}

bool ClusterCore::set_healthy(bool healthy) {
  if (healthy == healthy_) {
    return false;
  }
  healthy_ = healthy;
  ++counters_.health_transitions;
  return true;
}

CommitOutcome ClusterCore::commit(Commit commit, CommitMode mode) {
  const auto refuse = [&](std::string reason) {
    return CommitOutcome{CommitStatus::Refused, std::move(reason), published_.revision()};
  };
  const auto conflict = [&](std::string reason) {
    ++counters_.conflicts;
    return CommitOutcome{CommitStatus::Conflict, std::move(reason), published_.revision()};
  };
  if (!healthy_) {
    return refuse("cluster " + cluster_id() + " is not healthy");
  }
  if (deliveries_.given_up(commit.request_id)) {
    return refuse("request " + commit.request_id + " was given up");
  }
  if (deliveries_.committed_before(commit)) {
    // The same commit again (duplicated on the way): answered as the first was, or a scheduler
    // whose first answer was lost would take a conflict and leave the placements orphaned
    // (found by `unisched simulate --faults duplicate,drop`).
    return CommitOutcome{CommitStatus::Accepted, "already committed", published_.revision()};
  }
  if (mode == CommitMode::ClusterRevision && commit.revision != published_.revision()) {
    return conflict("decided at revision " + std::to_string(commit.revision) + ", the view is at " +
                    std::to_string(published_.revision()));
  }
  // The nodes as they will be, each copied once into the state the view then holds, in name
  // order (a batch in name order names each node once: the view checks it without a map), each
  // beside the state held now (the truth the holdings keep for a node they did not hold on).
  struct NodeAfterCommit {
    std::shared_ptr<model::NodeState> after;
    const std::shared_ptr<const model::NodeState>* before = nullptr;
  };
  absl::btree_map<std::string_view, NodeAfterCommit> after_commit;
  absl::btree_set<std::string_view> ids;
  for (const model::Reservation& reservation : commit.reservations) {
    const model::ClusterView::HeldState held = published_.nodes().held(reservation.node);
    if (mode == CommitMode::NodeRevisions) {
      const auto expected = commit.node_revisions.find(reservation.node);
      if (expected == commit.node_revisions.end()) {
        return refuse("the commit names no revision for node " + reservation.node);
      }
      if (held.revision == 0 || held.revision != expected->second) {  // 0: no such node
        return conflict("node " + reservation.node + " changed since revision " +
                        std::to_string(expected->second));
      }
    }
    if (holdings_.contains(reservation.id)) {
      return refuse("placement " + reservation.id + " is already reserved");
    }
    if (!ids.insert(reservation.id).second) {
      return refuse("placement " + reservation.id + " appears twice in the commit");
    }
    if (held.state == nullptr) {
      return refuse("no node " + reservation.node);
    }
    NodeAfterCommit& node = after_commit[reservation.node];
    if (node.after == nullptr) {
      node = {std::make_shared<model::NodeState>(**held.state), held.state};
    }
    if (auto why = model::reservation_conflict(*node.after, reservation)) {
      return refuse(*why);
    }
    model::apply_reservation(*node.after, reservation, +1);
  }
  std::vector<model::SharedNodeChange> changes;
  changes.reserve(after_commit.size());
  for (auto& [name, node] : after_commit) {
    if (!holdings_.holds_on(node.after->name)) {
      holdings_.set_truth(node.after->name, *node.before);
    }
    changes.push_back({model::NodeChangeKind::Update, std::move(node.after)});
  }
  deliveries_.note_committed(commit);
  for (model::Reservation& reservation : commit.reservations) {
    holdings_.add(std::move(reservation));
  }
  published_.publish(std::move(changes));  // cannot fail: every node exists and may exceed
  ++counters_.commits;
  return {CommitStatus::Accepted, {}, published_.revision()};
}

void ClusterCore::release(const std::vector<std::string>& reservation_ids) {
  std::set<std::string> touched;
  for (const std::string& id : reservation_ids) {
    deliveries_.releasing(id, 0);
    if (auto node = holdings_.erase(id)) {
      touched.insert(std::move(*node));
    }
  }
  std::vector<model::SharedNodeChange> changes;
  for (const std::string& name : touched) {
    const auto truth = holdings_.truth(name);
    if (truth == nullptr) {
      continue;
    }
    changes.push_back({model::NodeChangeKind::Update, holdings_.effective(truth)});
    if (!holdings_.holds_on(name)) {
      holdings_.drop_truth(name);
    }
  }
  if (!changes.empty()) {
    published_.publish(std::move(changes));
  }
}

}  // namespace unisched::actors
