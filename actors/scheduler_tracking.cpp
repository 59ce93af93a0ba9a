// A SchedulerState's bookkeeping around a decision: numbering its placements, telling the
// policy's observers, tracking placements until their cluster settles them, placing refused
// replicas again, and forgetting what is settled (or, past the bound, the oldest).
#include <algorithm>
#include <map>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "actors/scheduler_round.hpp"
#include "actors/scheduler_state.hpp"
#include "policy/demand.hpp"

namespace unisched::actors {
namespace {

using Decision = v1::SchedulingDecision;

Decision::Status status_for(int64_t wanted, int placed) {
  if (placed == 0) {
    return Decision::UNSCHEDULABLE;
  }
  return placed >= wanted ? Decision::PLACED : Decision::PARTIALLY_PLACED;
}

}  // namespace

v1::SchedulingDecision SchedulerState::Tracked::decision() const {
  Decision decoded;
  if (!decoded.ParseFromString(decision_bytes)) {
    throw std::logic_error("a tracked decision does not decode");
  }
  return decoded;
}

void SchedulerState::Tracked::keep(const v1::SchedulingDecision& decision) {
  decision.SerializeToString(&decision_bytes);
}

uint64_t SchedulerState::take_replica_number(Work& work) {
  if (work.free_replicas.empty()) {
    return work.next_replica++;
  }
  const uint64_t number = *work.free_replicas.begin();
  work.free_replicas.erase(work.free_replicas.begin());
  return number;
}

void SchedulerState::observe(const Work& work, const Decision& decision) {
  if (policy_.observers.empty()) {
    return;
  }
  const policy::ReplicaDemand demand = policy::demand_of(work.spec);
  for (const auto& replica : decision.replicas()) {
    for (const auto& observer : policy_.observers) {
      observer->placed(replica.cluster(), replica.node(), demand);
    }
  }
}

void SchedulerState::track(Work& work, const Decision& decision, SchedulerCommands& out,
                           Clock::time_point now) {
  observe(work, decision);
  Tracked& tracked = tracked_[work.request_id];
  tracked.spec = std::move(work.spec);
  tracked.keep(decision);
  for (const auto& replica : decision.replicas()) {
    tracked.unsettled.insert(replica.placement_id());
    placement_request_[replica.placement_id()] = work.request_id;
  }
  tracked_order_.push_back(work.request_id);
  bound_tracking(out);
  place_refused_early(decision, out, now);
}

void SchedulerState::place_refused_early(const Decision& decision, SchedulerCommands& out,
                                         Clock::time_point now) {
  // All taken out first: placing one again may start a round, which forgets the refusals kept
  // for the round before (found by `unisched simulate`, seed 2843: the second of two refused
  // replicas stayed in the decision and never ran).
  std::vector<std::pair<std::string, std::string>> refused;
  for (const auto& replica : decision.replicas()) {
    const auto early = refused_early_.find(replica.placement_id());
    if (early != refused_early_.end()) {
      refused.emplace_back(early->first, early->second);
      refused_early_.erase(early);
    }
  }
  for (const auto& [placement_id, reason] : refused) {
    out.append(on_refused_placement(placement_id, reason, now));
  }
}

void SchedulerState::replace_replica(const Work& work, const Decision& placed,
                                     SchedulerCommands& out, Clock::time_point now) {
  const auto found = tracked_.find(work.request_id);
  if (found == tracked_.end()) {
    return;  // forgotten meanwhile (tracking is bounded); the new placements go untracked
  }
  Tracked& tracked = found->second;
  --tracked.replacing;
  Decision decision = tracked.decision();
  decision.set_replacing(tracked.replacing);
  if (tracked.gang_released) {  // the gang was given up meanwhile: this replica goes too
    tracked.keep(decision);
    release_replicas(placed, out);
    forget_if_settled(work.request_id, out);
    return;
  }
  auto* replicas = decision.mutable_replicas();
  replicas->erase(std::remove_if(replicas->begin(), replicas->end(),
                                 [&](const Decision::Replica& replica) {
                                   return replica.placement_id() == work.replaces;
                                 }),
                  replicas->end());
  auto* quota = decision.mutable_quota_placements();
  quota->erase(
      std::remove_if(quota->begin(), quota->end(),
                     [&](const v1::QuotaPlacement& held) { return held.id() == work.replaces; }),
      quota->end());
  for (const auto& held : placed.quota_placements()) {
    *decision.add_quota_placements() = held;
  }
  if (!placed.queue().empty()) {
    decision.set_queue(placed.queue());
  }
  observe(work, placed);
  for (const auto& replica : placed.replicas()) {
    *decision.add_replicas() = replica;
    tracked.unsettled.insert(replica.placement_id());
    placement_request_[replica.placement_id()] = work.request_id;
  }
  std::string note = "replica " + work.replaces + " was refused by its cluster (" + work.refusal +
                     ")" + (placed.replicas_size() > 0 ? "; placed again" : "; not placed again");
  for (const std::string& reason : placed.reasons()) {
    note += (note.back() == ')' ? ": " : "; ") + reason;
  }
  decision.add_reasons(std::move(note));
  for (const auto& found_diagnosis : placed.diagnoses()) {
    *decision.add_diagnoses() = found_diagnosis;
  }
  if (placed.replicas_size() == 0 && tracked.spec.distribution.gang) {
    give_up_gang(tracked, decision, out);
  }
  decision.set_status(status_for(tracked.spec.replicas, decision.replicas_size()));
  tracked.keep(decision);
  out.updates.push_back(std::move(decision));
  forget_if_settled(work.request_id, out);
  place_refused_early(placed, out, now);
}

void SchedulerState::release_replicas(const Decision& decision, SchedulerCommands& out) {
  std::map<std::string, std::vector<Decision::Replica>> by_cluster;
  for (const auto& replica : decision.replicas()) {
    by_cluster[replica.cluster()].push_back(replica);
    placement_request_.erase(replica.placement_id());
    if (settings_.quotas) {
      out.quota_releases.push_back(replica.placement_id());
    }
  }
  for (const auto& [cluster, replicas] : by_cluster) {
    out.releases.push_back(release_of(cluster, replicas));
  }
}

/// A gang is all or nothing: when a refused replica finds no place again, the others are
/// released and the request is unschedulable (found by `unisched simulate`, seed 5980 with agent
/// and ClusterActor crashes: such gangs stayed partially placed).
void SchedulerState::give_up_gang(Tracked& tracked, Decision& decision, SchedulerCommands& out) {
  release_replicas(decision, out);
  decision.add_reasons("a gang is all or nothing: its other " +
                       std::to_string(decision.replicas_size()) + " replicas were released");
  decision.clear_replicas();
  decision.clear_quota_placements();
  tracked.unsettled.clear();
  tracked.gang_released = true;
}

void SchedulerState::forget_if_settled(const std::string& request_id, SchedulerCommands& out) {
  const auto found = tracked_.find(request_id);
  if (found == tracked_.end() || !found->second.unsettled.empty() || found->second.replacing > 0) {
    return;
  }
  tracked_.erase(found);
  out.forgotten.push_back(request_id);
  // The order keeps stale names until it is compacted; it stays within twice the tracked.
  if (tracked_order_.size() > 2 * tracked_.size() + 64) {
    std::deque<std::string> live;
    for (std::string& id : tracked_order_) {
      if (tracked_.count(id) > 0) {
        live.push_back(std::move(id));
      }
    }
    tracked_order_ = std::move(live);
  }
}

void SchedulerState::bound_tracking(SchedulerCommands& out) {
  while (tracked_.size() > settings_.max_tracked && !tracked_order_.empty()) {
    const std::string oldest = std::move(tracked_order_.front());
    tracked_order_.pop_front();
    const auto found = tracked_.find(oldest);
    if (found == tracked_.end()) {
      continue;
    }
    for (const std::string& placement : found->second.unsettled) {
      placement_request_.erase(placement);
    }
    tracked_.erase(found);
    summary_.set_forgotten_unsettled(summary_.forgotten_unsettled() + 1);
    out.forgotten.push_back(oldest);
  }
}

SchedulerCommands SchedulerState::on_refused_placement(const std::string& placement_id,
                                                       const std::string& reason,
                                                       Clock::time_point now) {
  const auto owner = placement_request_.find(placement_id);
  if (owner == placement_request_.end()) {
    // The refusal overtook the commit's answer (found by `unisched simulate --faults reorder`):
    // kept until the round that committed it is decided.
    if (!rounds_.empty()) {
      refused_early_[placement_id] = reason;
    }
    return {};
  }
  const std::string request_id = owner->second;
  placement_request_.erase(owner);
  Tracked& tracked = tracked_.at(request_id);
  tracked.unsettled.erase(placement_id);
  ++tracked.replacing;
  Decision decision = tracked.decision();
  decision.set_replacing(tracked.replacing);
  tracked.keep(decision);
  for (const auto& replica : decision.replicas()) {
    if (replica.placement_id() == placement_id) {
      tracked.refused_on.insert({replica.cluster(), replica.node()});
    }
  }
  summary_.set_requeued(summary_.requeued() + 1);
  auto work = std::make_unique<Work>();
  work->id = placement_id + "-again";
  work->request_id = request_id;
  work->replaces = placement_id;
  work->refusal = reason;
  work->avoid = tracked.refused_on;
  work->spec = tracked.spec;
  work->spec.replicas = 1;
  work->spec.distribution.gang = false;
  work->spec.distribution.weights.clear();
  work->submitted = now;
  SchedulerCommands out;
  // The submitter learns the request is back in this scheduler's hands: should the scheduler
  // stop now, the hub gives it up (and releases it) rather than keep a decision that lies.
  out.updates.push_back(std::move(decision));
  if (settings_.quotas) {
    out.quota_releases.push_back(placement_id);  // the replacement takes quota of its own
  }
  out.append(enqueue(std::move(work), now));
  return out;
}

SchedulerCommands SchedulerState::on_cluster_actor_lost(const std::string& cluster,
                                                        Clock::time_point now) {
  v1::ReleaseOrder release;
  release.set_cluster_id(cluster);
  std::vector<std::pair<std::string_view, std::string_view>> unsettled;  // (request, placement)
  for (const auto& [request_id, tracked] : tracked_) {
    if (tracked.unsettled.empty()) {
      continue;  // nothing of it to release: its decision stays encoded
    }
    const Decision decision = tracked.decision();
    for (const auto& replica : decision.replicas()) {
      const auto held = tracked.unsettled.find(replica.placement_id());
      if (replica.cluster() == cluster && held != tracked.unsettled.end()) {
        unsettled.emplace_back(request_id, *held);  // the view outlives the decoded decision
      }
    }
  }
  // In request id order (and a request's replicas in theirs), so that the replicas are placed
  // again in the same order on every run: the hashed map's order is not.
  std::stable_sort(unsettled.begin(), unsettled.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [request_id, placement_id] : unsettled) {
    release.add_placement_ids(std::string(placement_id));
  }
  SchedulerCommands out;
  if (release.placement_ids().empty()) {
    return out;
  }
  out.releases.push_back(release);
  for (const std::string& id : release.placement_ids()) {
    out.append(on_refused_placement(
        id, "its ClusterActor restarted before the cluster confirmed it", now));
  }
  return out;
}

SchedulerCommands SchedulerState::on_settled(const std::vector<std::string>& placement_ids) {
  SchedulerCommands out;
  for (const std::string& placement : placement_ids) {
    const auto owner = placement_request_.find(placement);
    if (owner == placement_request_.end()) {
      continue;
    }
    const std::string request_id = owner->second;
    placement_request_.erase(owner);
    tracked_.at(request_id).unsettled.erase(placement);
    forget_if_settled(request_id, out);
  }
  return out;
}

}  // namespace unisched::actors
