#include "actors/cluster_state.hpp"

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

UpdateOutcome ClusterState::on_update(const model::ViewUpdate& update) {
  if (update.cluster_id != cluster_id_) {
    ++counters_.rejected;
    return {AckStatus::Rejected, position_.version,
            "update for cluster \"" + update.cluster_id + "\" sent to \"" + cluster_id_ + "\""};
  }
  switch (model::judge_update(position_, update.epoch, update.base_version, update.version)) {
    case model::UpdateVerdict::Malformed:
      ++counters_.rejected;
      return {AckStatus::Rejected, position_.version,
              "version " + std::to_string(update.version) + " of epoch " +
                  std::to_string(update.epoch) + " does not follow base version " +
                  std::to_string(update.base_version)};
    case model::UpdateVerdict::Duplicate:
      ++counters_.duplicates;
      return {AckStatus::Duplicate, position_.version, {}};
    case model::UpdateVerdict::Gap:
      if (stash_.size() < kStashLength) {
        stash_.push_back(update);
      }
      if (resync_ == Resync::Idle) {
        ++counters_.gaps;
        start_resync();
      }
      return {AckStatus::Gap, position_.version, {}};
    case model::UpdateVerdict::Apply:
      break;
  }
  UpdateOutcome outcome = apply(update);
  if (outcome.status == AckStatus::Applied) {
    replay_stash();
    outcome.version = position_.version;
  }
  return outcome;
}

UpdateOutcome ClusterState::reject_undecodable(std::string reason) {
  ++counters_.rejected;
  return {AckStatus::Rejected, position_.version, std::move(reason)};
}

UpdateOutcome ClusterState::apply(const model::ViewUpdate& update) {
  if (auto problem = view_.apply(update.changes)) {
    ++counters_.rejected;
    return {AckStatus::Rejected, position_.version, problem->to_string()};
  }
  if (update.resources) {
    view_.set_resources(*update.resources);
  }
  position_ = {update.epoch, update.version};
  ++counters_.updates_applied;
  counters_.deltas_applied += update.changes.size();
  log_.push_back(update);
  if (log_.size() > kChangeLogLength) {
    log_.pop_front();
  }
  return {AckStatus::Applied, position_.version, {}};
}

void ClusterState::replay_stash() {
  // Held-back updates that now follow in order are applied; older ones are dropped.
  bool progressed = true;
  while (progressed && !stash_.empty()) {
    progressed = false;
    for (auto it = stash_.begin(); it != stash_.end();) {
      const auto verdict = model::judge_update(position_, it->epoch, it->base_version, it->version);
      if (verdict == model::UpdateVerdict::Apply) {
        apply(*it);
        it = stash_.erase(it);
        progressed = true;
      } else if (verdict != model::UpdateVerdict::Gap) {
        it = stash_.erase(it);
      } else {
        ++it;
      }
    }
  }
}

void ClusterState::start_resync() {
  if (resync_ == Resync::Idle) {
    resync_ = Resync::Needed;
  }
}

void ClusterState::request_resync() {
  start_resync();
}

bool ClusterState::take_resync_request() {
  if (resync_ != Resync::Needed) {
    return false;
  }
  resync_ = Resync::InFlight;
  return true;
}

std::optional<std::string> ClusterState::on_snapshot(const model::ViewSnapshot& snapshot) {
  if (snapshot.cluster_id != cluster_id_) {
    resync_ = Resync::Needed;
    return "snapshot of cluster \"" + snapshot.cluster_id + "\" sent to \"" + cluster_id_ + "\"";
  }
  if (!model::snapshot_is_current(position_, snapshot.epoch, snapshot.version)) {
    // Updates already carried the view past this snapshot.
    resync_ = Resync::Idle;
    replay_stash();
    return std::nullopt;
  }
  if (auto problem = view_.replace(snapshot.nodes, snapshot.resources)) {
    resync_ = Resync::Needed;
    return problem->to_string();
  }
  position_ = {snapshot.epoch, snapshot.version};
  ++counters_.resyncs;
  resync_ = Resync::Idle;
  lagging_.reset();
  log_.clear();  // subscribers behind this point need the whole view
  replay_stash();
  return std::nullopt;
}

void ClusterState::on_resync_failed() {
  resync_ = Resync::Needed;
}

void ClusterState::on_agent_position(uint64_t epoch, uint64_t version) {
  const bool behind = epoch != position_.epoch || version > position_.version;
  if (!behind) {
    lagging_.reset();
    return;
  }
  // Behind what an earlier report already said: those updates are not just in flight.
  const bool still_lagging = lagging_ && lagging_->epoch == epoch &&
                             (epoch != position_.epoch || lagging_->version > position_.version);
  if (still_lagging && resync_ == Resync::Idle) {
    ++counters_.gaps;
    start_resync();
  }
  lagging_ = model::StreamPosition{epoch, version};
}

bool ClusterState::set_healthy(bool healthy) {
  if (healthy == healthy_) {
    return false;
  }
  healthy_ = healthy;
  ++counters_.health_transitions;
  return true;
}

std::optional<std::vector<model::ViewUpdate>> ClusterState::changes_since(uint64_t epoch,
                                                                          uint64_t version) const {
  if (epoch != position_.epoch) {
    return std::nullopt;
  }
  std::vector<model::ViewUpdate> changes;
  if (version >= position_.version) {
    return changes;
  }
  if (log_.empty() || log_.front().base_version > version) {
    return std::nullopt;
  }
  for (const auto& update : log_) {
    if (update.version > version) {
      changes.push_back(update);
    }
  }
  return changes;
}

model::ViewSnapshot ClusterState::snapshot() const {
  model::ViewSnapshot snapshot;
  snapshot.cluster_id = cluster_id_;
  snapshot.epoch = position_.epoch;
  snapshot.version = position_.version;
  for (const model::NodeState* node : view_.sorted_nodes()) {
    snapshot.nodes.push_back(*node);
  }
  snapshot.resources = view_.resources();
  return snapshot;
}

}  // namespace unisched::actors
