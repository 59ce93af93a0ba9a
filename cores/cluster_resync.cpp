// ClusterCore's resync (cores/cluster_core.hpp): when the view needs the agent's whole state,
// one pull at a time, a refused snapshot pulled again after a backoff, a pulled or pushed
// snapshot taken when it is current, and the effects every event leaves for the actor.
#include <unordered_set>

#include "cores/cluster_core.hpp"

namespace unisched::actors {

ClusterEffects ClusterCore::request_resync() {
  resync_.need();
  return effects(PullNow::IfNeeded);
}

ClusterEffects ClusterCore::resume_resync() {
  return effects(PullNow::IfNeeded);
}

ClusterEffects ClusterCore::effects(PullNow pull) {
  ClusterEffects effects;
  effects.refused.swap(refused_);
  effects.left_out = admission_.take_news();
  effects.pull_snapshot = pull == PullNow::IfNeeded && resync_.start_pull();
  effects.pull_after_backoff = pull == PullNow::AfterBackoff;
  return effects;
}

SnapshotOutcome ClusterCore::on_snapshot(model::ViewSnapshot snapshot) {
  SnapshotOutcome outcome;
  outcome.problem = take_snapshot(snapshot);
  // A refused snapshot is pulled again after the backoff, not at once: it may be refused again.
  outcome.effects = effects(outcome.problem ? PullNow::AfterBackoff : PullNow::IfNeeded);
  return outcome;
}

std::optional<std::string> ClusterCore::take_snapshot(model::ViewSnapshot& snapshot) {
  if (snapshot.cluster_id != cluster_id()) {
    resync_.snapshot_refused();
    return "snapshot of cluster \"" + snapshot.cluster_id + "\" sent to \"" + cluster_id() + "\"";
  }
  deliveries_.confirm_ended(snapshot.finished_placements, snapshot.refused_placements);
  placements_.note_outcomes(snapshot.finished_placements, snapshot.refused_placements);
  if (!model::snapshot_is_current(published_.position(), snapshot.epoch, snapshot.version)) {
    // Updates already carried the view past this snapshot, or it is of an earlier run.
    resync_.snapshot_passed();
    replay_held_back();
    return std::nullopt;
  }
  admission_.admit(snapshot);
  for (const auto& node : snapshot.nodes) {
    if (node->name.empty()) {  // admission judged every named node
      resync_.snapshot_refused();
      return model::check_node(*node)->to_string();
    }
  }
  ReservationHoldings next = holdings_;  // a resync copies every node anyway
  std::set<std::string> touched;
  next.settle(snapshot.applied_placements, snapshot.refused_placements,
              snapshot.finished_placements, touched);
  deliveries_.note_running(snapshot.applied_placements);
  std::vector<std::pair<std::string, std::string>> lost;
  if (!next.empty()) {
    std::unordered_set<std::string_view> present;
    present.reserve(snapshot.nodes.size());
    for (const auto& node : snapshot.nodes) {
      present.insert(node->name);
    }
    std::vector<std::string> gone;
    for (const model::Reservation* reservation : next.in_id_order()) {
      if (present.count(reservation->node) == 0) {
        gone.push_back(reservation->id);
      }
    }
    for (std::string& id : gone) {
      const auto node = next.erase(id);
      lost.emplace_back(std::move(id), "node " + *node + " left the cluster");
    }
  }
  next.clear_truth();
  std::vector<std::shared_ptr<const model::NodeState>> effective;
  effective.reserve(snapshot.nodes.size());
  for (auto& node : snapshot.nodes) {
    if (next.holds_on(node->name)) {
      next.set_truth(node->name, node);
      effective.push_back(next.effective(node));
    } else {
      effective.push_back(std::move(node));
    }
  }
  if (auto problem = published_.replace(effective, std::move(snapshot.resources),
                                        {snapshot.epoch, snapshot.version})) {
    resync_.snapshot_refused();
    return problem->to_string();
  }
  holdings_ = std::move(next);
  placements_.replace_running(snapshot.applied_placements);
  placements_.note_outcomes({}, lost);
  // Refusals the snapshot repeats (the update that told them may be lost: found by `unisched
  // simulate`); the actor hands back only those it still has a committer for, once.
  refused_.insert(refused_.end(), snapshot.refused_placements.begin(),
                  snapshot.refused_placements.end());
  refused_.insert(refused_.end(), lost.begin(), lost.end());
  counters_.placements_refused += lost.size();
  ++counters_.resyncs;
  resync_.snapshot_taken();
  replay_held_back();
  return std::nullopt;
}

ClusterEffects ClusterCore::on_resync_failed() {
  resync_.pull_failed();
  return effects(PullNow::AfterBackoff);
}

ClusterEffects ClusterCore::on_agent_position(uint64_t epoch, uint64_t version) {
  if (resync_.on_agent_position(published_.position(), {epoch, version})) {
    ++counters_.gaps;
  }
  return effects(PullNow::IfNeeded);
}

}  // namespace unisched::actors
