#include "cores/agent_core.hpp"

#include <algorithm>

#include "messages/node_wire.hpp"
#include "messages/snapshot_parts.hpp"
#include "model/printable.hpp"
#include "model/request_attempt.hpp"
#include "model/reservation.hpp"

namespace unisched::actors {

AgentCore::AgentCore(std::shared_ptr<adapters::ClusterAdapter> adapter, uint64_t epoch)
    : adapter_(std::move(adapter)),
      cluster_id_(adapter_->profile().spec.cluster_id),
      epoch_(epoch) {}

std::string AgentCore::unsendable_node(const model::NodeState& node) {
  const size_t bytes = messages::node_wire_size(node);
  if (bytes <= messages::kMaxNodeWireBytes) {
    return {};
  }
  return "node " + model::quoted_brief(node.name) + ": " + std::to_string(bytes) +
         " bytes as a message, more than the " + std::to_string(messages::kMaxNodeWireBytes) +
         " a node may take (its labels or devices); the node is left out";
}

model::NodeAdmission::News AgentCore::observe() {
  ++counters_.observations;
  // Outcomes first: an applied one's node changes are then in the poll below.
  for (const adapters::LaterOutcome& later : adapter_->poll_outcomes()) {
    if (pending_placements_.erase(later.id) == 0) {
      continue;
    }
    if (later.outcome == adapters::PlacementOutcome::Applied) {
      applied_unobserved_.push_back(later.id);
      ++counters_.placements_applied;
    } else {
      running_.erase(later.id);
      refuse(later.id, later.reason.empty() ? adapters::describe(later.outcome) : later.reason);
    }
  }
  for (const std::string& id : adapter_->poll_finished()) {
    // The work ended by itself: its quota is free again. Told even when this run of the agent
    // did not start it (an earlier run did, before a restart): the cluster knows it ended.
    running_.erase(id);
    if (!finished_recently_.contains(id)) {
      finished_to_report_.push_back(id);
      remember_finished(id);
    }
  }
  if (adapter_->take_relisted()) {
    start_over_ = listed_;  // the first listing is pushed as the first update anyway
    ++counters_.relists;
  }
  std::vector<model::NodeChange> changes;
  if (!listed_) {
    // The first observation starts from the full list; later ones from the change feed.
    for (model::NodeState& node : adapter_->list_nodes()) {
      changes.push_back(model::NodeChange{model::NodeChangeKind::Add, std::move(node)});
    }
    // What an earlier run of the agent carried out still runs: snapshots list it, so the centre
    // tells it from an order that never arrived.
    for (std::string& id : adapter_->running_placements()) {
      running_.insert(std::move(id));
    }
    listed_ = true;
  }
  for (model::NodeChange& change : adapter_->poll_changes()) {
    changes.push_back(std::move(change));
  }
  // Placements carried out before this observation now have their node changes pending.
  applied_to_report_.insert(applied_to_report_.end(), applied_unobserved_.begin(),
                            applied_unobserved_.end());
  applied_unobserved_.clear();
  // An unusable node is sent as removed (the coalescer drops that when it was never sent).
  admission_.admit(changes, [](const std::string&) { return true; });
  const uint64_t coalesced_before = pending_.coalesced();
  for (const model::NodeChange& change : changes) {
    pending_.record(change, published_.contains(std::string_view(change.node.name)));
  }
  counters_.changes_seen += changes.size();
  counters_.coalesced += pending_.coalesced() - coalesced_before;
  return admission_.take_news();
}

AgentCore::PushKind AgentCore::on_push_due() {
  if (!start_over_) {
    return PushKind::Updates;
  }
  start_over_ = false;
  while (next_update()) {
  }
  return PushKind::WholeSnapshot;
}

std::optional<model::ViewUpdate> AgentCore::next_update() {
  model::ClusterResources resources = adapter_->resources();
  const bool resources_changed = resources != published_resources_;
  if (pending_.empty() && !resources_changed && applied_to_report_.empty() &&
      refused_to_report_.empty() && finished_to_report_.empty()) {
    return std::nullopt;
  }
  model::ViewUpdate update;
  update.cluster_id = cluster_id_;
  update.epoch = epoch_;
  update.base_version = version_;
  update.version = ++version_;
  std::vector<model::NodeChange> changes = pending_.take(model::kMaxNodeChangesPerUpdate);
  update.changes.reserve(changes.size());
  for (model::NodeChange& change : changes) {
    model::SharedNodeChange& shared = update.changes.emplace_back(model::share(std::move(change)));
    const auto before = published_.find(std::string_view(shared.node->name));
    // The centre keeps what was sent before, so a link need carry no more than what changed.
    shared.usage_only = shared.kind == model::NodeChangeKind::Update &&
                        before != published_.end() &&
                        model::only_usage_differs(**before, *shared.node);
    // Erased first even when replaced: the set finds an entry by its state's name.
    if (before != published_.end()) {
      published_.erase(before);
    }
    if (shared.kind != model::NodeChangeKind::Remove) {
      published_.insert(shared.node);
    }
  }
  if (resources_changed) {
    published_resources_ = resources;
    update.resources = std::move(resources);
  }
  update.applied_placements.swap(applied_to_report_);
  update.refused_placements.swap(refused_to_report_);
  update.finished_placements.swap(finished_to_report_);
  // The same health its probes and heartbeats give: an update never says otherwise.
  update.health =
      adapter_->trouble().empty() ? model::HealthState::Healthy : model::HealthState::Unhealthy;
  ++counters_.updates_built;
  counters_.deltas_sent += update.changes.size();
  return update;
}

bool AgentCore::carried_out_before(const std::string& id) const {
  return running_.count(id) > 0 || pending_placements_.count(id) > 0 ||
         finished_recently_.contains(id) || refused_recently_.count(id) > 0;
}

void AgentCore::carry_out(const std::vector<model::Reservation>& placements) {
  for (const model::Reservation& placement : placements) {
    if (carried_out_before(placement.id)) {
      continue;  // an order repeated (resent, or duplicated on the way): it counts once
    }
    if (given_up_.contains(model::attempt_of_placement(placement.id))) {
      refuse(placement.id, "its request was given up");
      continue;
    }
    // A share is a request's only device (the request's validation sees to it), so one share
    // speaks for every device of a placement.
    const int32_t milli =
        placement.device_milli.empty() ? model::kWholeDeviceMilli : placement.device_milli.front();
    const adapters::Placement order{
        placement.id,      placement.node, placement.cpu_milli,  placement.memory_bytes,
        placement.devices, milli,          placement.host_ports, placement.pod_template};
    const adapters::PlacementOutcome outcome = adapter_->apply(order);
    // DuplicateId: the cluster already runs it (carried out by an earlier run of the agent).
    if (outcome == adapters::PlacementOutcome::Applied ||
        outcome == adapters::PlacementOutcome::DuplicateId) {
      applied_unobserved_.push_back(placement.id);
      running_.insert(placement.id);
      ++counters_.placements_applied;
    } else if (outcome == adapters::PlacementOutcome::Pending) {
      pending_placements_.insert(placement.id);
      running_.insert(placement.id);  // finishing it releases it, whatever the cluster decides
    } else {
      refuse(placement.id, adapters::describe(outcome));
    }
  }
}

void AgentCore::refuse(const std::string& id, const std::string& reason) {
  refused_to_report_.emplace_back(id, reason);
  recently_refused_.emplace_back(id, reason);
  refused_recently_.insert(id);
  if (recently_refused_.size() > kOutcomesRemembered) {
    refused_recently_.erase(recently_refused_.front().first);
    recently_refused_.pop_front();
  }
  ++counters_.placements_refused;
}

void AgentCore::finish(const std::vector<std::string>& placement_ids) {
  for (const std::string& id : placement_ids) {
    pending_placements_.erase(id);  // whatever the cluster decides now is moot
    // Released at the cluster even when this run of the agent did not start it (an earlier run
    // did): found by `unisched simulate --faults agent-crash,drop`, such placements ran on.
    running_.erase(id);
    adapter_->release(id);
    // Reported even for a placement never carried out here (its order was lost, or arrives
    // later and is then ignored): the centre learns the release took effect.
    if (!finished_recently_.contains(id)) {
      finished_to_report_.push_back(id);
      remember_finished(id);
    }
  }
}

void AgentCore::release_requests(const std::vector<std::string>& request_ids) {
  if (request_ids.empty()) {
    return;
  }
  // Matched against this order's requests, not the remembered ones: an order may name more
  // requests than are remembered.
  const std::set<std::string> requests(request_ids.begin(), request_ids.end());
  for (const std::string& request : requests) {
    given_up_.insert(request);
  }
  std::set<std::string> known(running_.begin(), running_.end());  // pending ones included
  for (std::string& id : adapter_->running_placements()) {
    known.insert(std::move(id));
  }
  std::vector<std::string> ending;
  for (const std::string& id : known) {
    if (requests.count(model::attempt_of_placement(id)) > 0) {
      ending.push_back(id);
    }
  }
  finish(ending);
}

void AgentCore::remember_finished(const std::string& id) {
  finished_recently_.insert(id);
}

model::ViewSnapshot AgentCore::snapshot() {
  ++counters_.snapshots;
  model::ViewSnapshot snapshot;
  snapshot.cluster_id = cluster_id_;
  snapshot.epoch = epoch_;
  snapshot.version = version_;
  snapshot.nodes.assign(published_.begin(), published_.end());  // shared, not copied
  std::sort(snapshot.nodes.begin(), snapshot.nodes.end(),
            [](const auto& a, const auto& b) { return a->name < b->name; });
  snapshot.resources = published_resources_;
  // Only placements whose node changes are already published count as applied here.
  for (const std::string& id : running_) {
    if (std::find(applied_unobserved_.begin(), applied_unobserved_.end(), id) ==
            applied_unobserved_.end() &&
        std::find(applied_to_report_.begin(), applied_to_report_.end(), id) ==
            applied_to_report_.end()) {
      snapshot.applied_placements.push_back(id);
    }
  }
  snapshot.refused_placements.assign(recently_refused_.begin(), recently_refused_.end());
  snapshot.finished_placements.assign(finished_recently_.in_order().begin(),
                                      finished_recently_.in_order().end());
  return snapshot;
}

}  // namespace unisched::actors
