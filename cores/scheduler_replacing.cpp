// SchedulerCore and its decided work (SchedulerTracking): telling the policy's observers what
// was placed, placing refused replicas again (those whose refusal overtook the commit's answer
// too), and what a lost ClusterActor or a settled placement changes.
#include <utility>

#include "cores/scheduler_core.hpp"
#include "policy/demand.hpp"

namespace unisched::actors {

namespace {

/// Tells the policy's observers of the replicas `decision` placed.
void observe(const policy::Policy& policy, const SchedulerWork& work,
             const v1::SchedulingDecision& decision) {
  if (policy.observers.empty()) {
    return;
  }
  const policy::ReplicaDemand demand = policy::demand_of(work.spec);
  for (const auto& replica : decision.replicas()) {
    for (const auto& observer : policy.observers) {
      observer->placed(replica.cluster(), replica.node(), demand);
    }
  }
}

}  // namespace

void SchedulerCore::track(Work& work, const v1::SchedulingDecision& decision,
                          SchedulerCommands& out, Clock::time_point now) {
  observe(policy_, work, decision);
  out.append(tracking_.track(work.request_id, std::move(work.spec), decision));
  place_refused_early(decision, out, now);
}

void SchedulerCore::replace_replica(const Work& work, const v1::SchedulingDecision& placed,
                                    SchedulerCommands& out, Clock::time_point now) {
  SchedulerTracking::Replaced replaced = tracking_.replaced(work, placed);
  out.append(std::move(replaced.commands));
  if (replaced.kept) {
    observe(policy_, work, placed);
    place_refused_early(placed, out, now);
  }
}

void SchedulerCore::place_refused_early(const v1::SchedulingDecision& decision,
                                        SchedulerCommands& out, Clock::time_point now) {
  // All taken out first: placing one again may start a round, which forgets the refusals kept
  // for the round before (found by `unisched simulate`, seed 2843: the second of two refused
  // replicas stayed in the decision and never ran).
  for (const auto& [placement_id, reason] : tracking_.take_early_refusals(decision)) {
    out.append(on_refused_placement(placement_id, reason, now));
  }
}

SchedulerCommands SchedulerCore::on_refused_placement(const std::string& placement_id,
                                                      const std::string& reason,
                                                      Clock::time_point now) {
  SchedulerTracking::Refusal refusal = tracking_.refuse(placement_id, reason, now);
  if (!refusal.again) {
    // The refusal overtook the commit's answer (found by `unisched simulate --faults reorder`):
    // kept until the round that committed it is decided.
    if (!rounds_.empty()) {
      tracking_.refused_early(placement_id, reason);
    }
    return {};
  }
  summary_.set_requeued(summary_.requeued() + 1);
  SchedulerCommands out;
  // The submitter learns the request is back in this scheduler's hands: should the scheduler
  // stop now, the hub gives it up (and releases it) rather than keep a decision that lies.
  out.updates.push_back(std::move(*refusal.update));
  if (settings_.quotas) {
    out.quota_releases.push_back(placement_id);  // the replacement takes quota of its own
  }
  out.append(enqueue(std::move(refusal.again), now));
  return out;
}

SchedulerCommands SchedulerCore::on_cluster_actor_lost(const std::string& cluster,
                                                       Clock::time_point now) {
  const std::vector<std::string> unsettled = tracking_.unsettled_on(cluster);
  SchedulerCommands out;
  if (unsettled.empty()) {
    return out;
  }
  out.releases.push_back(ClusterRelease{cluster, unsettled});
  for (const std::string& id : unsettled) {
    out.append(on_refused_placement(
        id, "its ClusterActor restarted before the cluster confirmed it", now));
  }
  return out;
}

SchedulerCommands SchedulerCore::on_settled(const std::vector<std::string>& placement_ids) {
  return tracking_.settle(placement_ids);
}

}  // namespace unisched::actors
