#include "cores/scheduler_tracking.hpp"

#include <algorithm>
#include <map>
#include <string_view>
#include <utility>

namespace unisched::actors {
namespace {

using Decision = RequestDecision;

Decision::Status status_for(int64_t wanted, size_t placed) {
  if (placed == 0) {
    return Decision::Status::Unschedulable;
  }
  return static_cast<int64_t>(placed) >= wanted ? Decision::Status::Placed
                                                : Decision::Status::PartiallyPlaced;
}

/// The decision without placement `placement_id` (and without its quota).
void drop_replica(Decision& decision, const std::string& placement_id) {
  auto& replicas = decision.replicas;
  replicas.erase(std::remove_if(replicas.begin(), replicas.end(),
                                [&](const Decision::Replica& replica) {
                                  return replica.placement_id == placement_id;
                                }),
                 replicas.end());
  decision.quota_placements.erase(placement_id);
}

/// Why the decision changed: the refusal, and what placing it again found.
std::string replacement_note(const SchedulerWork& work, const Decision& placed) {
  std::string note = "replica " + work.replaces + " was refused by its cluster (" + work.refusal +
                     ")" + (placed.replicas.size() > 0 ? "; placed again" : "; not placed again");
  for (const std::string& reason : placed.reasons) {
    note += (note.back() == ')' ? ": " : "; ") + reason;
  }
  return note;
}

}  // namespace

SchedulerCommands SchedulerTracking::track(const std::string& request_id,
                                           model::SchedulingRequestSpec spec,
                                           const Decision& decision) {
  Tracked& tracked = tracked_[request_id];
  tracked.spec = std::move(spec);
  tracked.decision = decision;
  for (const auto& replica : decision.replicas) {
    tracked.unsettled.insert(replica.placement_id);
    placement_request_[replica.placement_id] = request_id;
  }
  tracked_order_.push_back(request_id);
  SchedulerCommands out;
  bound(out);
  return out;
}

SchedulerTracking::Refusal SchedulerTracking::refuse(const std::string& placement_id,
                                                     const std::string& reason,
                                                     std::chrono::steady_clock::time_point now) {
  const auto owner = placement_request_.find(placement_id);
  if (owner == placement_request_.end()) {
    return {};
  }
  const std::string request_id = owner->second;
  placement_request_.erase(owner);
  Tracked& tracked = tracked_.at(request_id);
  tracked.unsettled.erase(placement_id);
  ++tracked.replacing;
  tracked.decision.replacing = static_cast<uint32_t>(tracked.replacing);
  for (const auto& replica : tracked.decision.replicas) {
    if (replica.placement_id == placement_id) {
      tracked.refused_on.insert({replica.cluster, replica.node});
    }
  }
  auto work = std::make_unique<SchedulerWork>();
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
  return Refusal{std::move(work), tracked.decision};
}

SchedulerTracking::Replaced SchedulerTracking::replaced(const SchedulerWork& work,
                                                        const Decision& placed) {
  Replaced result;
  SchedulerCommands& out = result.commands;
  const auto found = tracked_.find(work.request_id);
  if (found == tracked_.end()) {
    return result;  // forgotten meanwhile (tracking is bounded); the new placements go untracked
  }
  Tracked& tracked = found->second;
  --tracked.replacing;
  Decision& decision = tracked.decision;
  decision.replacing = static_cast<uint32_t>(tracked.replacing);
  if (tracked.gang_released) {  // the gang was given up meanwhile: this replica goes too
    release_replicas(placed, out);
    forget_if_settled(work.request_id, out);
    return result;
  }
  drop_replica(decision, work.replaces);
  decision.quota_placements.insert(placed.quota_placements.begin(), placed.quota_placements.end());
  if (!placed.queue.empty()) {
    decision.queue = placed.queue;
  }
  for (const auto& replica : placed.replicas) {
    decision.replicas.push_back(replica);
    tracked.unsettled.insert(replica.placement_id);
    placement_request_[replica.placement_id] = work.request_id;
  }
  decision.reasons.push_back(replacement_note(work, placed));
  decision.diagnoses.insert(decision.diagnoses.end(), placed.diagnoses.begin(),
                            placed.diagnoses.end());
  if (placed.replicas.empty() && tracked.spec.distribution.gang) {
    give_up_gang(tracked, decision, out);
  }
  decision.status = status_for(tracked.spec.replicas, decision.replicas.size());
  out.updates.push_back(decision);
  forget_if_settled(work.request_id, out);
  result.kept = true;
  return result;
}

void SchedulerTracking::release_replicas(const Decision& decision, SchedulerCommands& out) {
  std::map<std::string, std::vector<Decision::Replica>> by_cluster;
  for (const auto& replica : decision.replicas) {
    by_cluster[replica.cluster].push_back(replica);
    placement_request_.erase(replica.placement_id);
    if (quotas_) {
      out.quota_releases.push_back(replica.placement_id);
    }
  }
  for (const auto& [cluster, replicas] : by_cluster) {
    out.releases.push_back(release_of(cluster, replicas));
  }
}

/// A gang is all or nothing: when a refused replica finds no place again, the others are
/// released and the request is unschedulable (found by `unisched simulate`, seed 5980 with agent
/// and ClusterActor crashes: such gangs stayed partially placed).
void SchedulerTracking::give_up_gang(Tracked& tracked, Decision& decision, SchedulerCommands& out) {
  release_replicas(decision, out);
  decision.reasons.push_back("a gang is all or nothing: its other " +
                             std::to_string(decision.replicas.size()) + " replicas were released");
  decision.replicas.clear();
  decision.quota_placements.clear();
  tracked.unsettled.clear();
  tracked.gang_released = true;
}

void SchedulerTracking::forget_if_settled(const std::string& request_id, SchedulerCommands& out) {
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

void SchedulerTracking::bound(SchedulerCommands& out) {
  while (tracked_.size() > max_tracked_ && !tracked_order_.empty()) {
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
    ++forgotten_unsettled_;
    out.forgotten.push_back(oldest);
  }
}

SchedulerCommands SchedulerTracking::settle(const std::vector<std::string>& placement_ids) {
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

std::vector<std::string> SchedulerTracking::unsettled_on(const std::string& cluster) const {
  std::vector<std::pair<std::string_view, std::string_view>> unsettled;  // (request, placement)
  for (const auto& [request_id, tracked] : tracked_) {
    if (tracked.unsettled.empty()) {
      continue;
    }
    for (const auto& replica : tracked.decision.replicas) {
      const auto held = tracked.unsettled.find(replica.placement_id);
      if (replica.cluster == cluster && held != tracked.unsettled.end()) {
        unsettled.emplace_back(request_id, *held);
      }
    }
  }
  // In request id order (and a request's replicas in theirs), so that the replicas are placed
  // again in the same order on every run: the hashed map's order is not.
  std::stable_sort(unsettled.begin(), unsettled.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  out.reserve(unsettled.size());
  for (const auto& [request_id, placement_id] : unsettled) {
    out.emplace_back(placement_id);
  }
  return out;
}

void SchedulerTracking::refused_early(const std::string& placement_id, const std::string& reason) {
  refused_early_[placement_id] = reason;
}

void SchedulerTracking::forget_early_refusals(const std::vector<Decision::Replica>& replicas) {
  for (const auto& replica : replicas) {
    refused_early_.erase(replica.placement_id);
  }
}

std::vector<std::pair<std::string, std::string>> SchedulerTracking::take_early_refusals(
    const Decision& decision) {
  std::vector<std::pair<std::string, std::string>> refused;
  for (const auto& replica : decision.replicas) {
    const auto early = refused_early_.find(replica.placement_id);
    if (early != refused_early_.end()) {
      refused.emplace_back(early->first, early->second);
      refused_early_.erase(early);
    }
  }
  return refused;
}

}  // namespace unisched::actors
