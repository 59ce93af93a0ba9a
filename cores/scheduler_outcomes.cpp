#include "cores/scheduler_outcomes.hpp"

#include <iterator>
#include <utility>

#include "messages/latency_buckets.hpp"
#include "policy/demand.hpp"

namespace unisched::actors {
namespace {

/// Tells the policy's observers of the replicas `decision` placed.
void observe(const policy::Policy& policy, const SchedulerWork& work,
             const RequestDecision& decision) {
  if (policy.observers.empty()) {
    return;
  }
  const policy::ReplicaDemand demand = policy::demand_of(work.spec);
  for (const auto& replica : decision.replicas) {
    for (const auto& observer : policy.observers) {
      observer->placed(replica.cluster, replica.node, demand);
    }
  }
}

/// Counts a request's decision latency in the summary's histogram.
void count_latency(SchedulerCounts& counts, double seconds) {
  if (counts.decision_latency_buckets.empty()) {
    counts.decision_latency_buckets.resize(kLatencyBoundsSeconds.size() + 1, 0);
  }
  ++counts.decision_latency_buckets[latency_bucket(seconds)];
  counts.decision_latency_seconds_sum += seconds;
}

void count_status(SchedulerCounts& counts, RequestDecision::Status status) {
  switch (status) {
    case RequestDecision::Status::Placed:
      ++counts.placed;
      break;
    case RequestDecision::Status::PartiallyPlaced:
      ++counts.partially_placed;
      break;
    default:
      ++counts.unschedulable;
  }
}

/// The work's decision; its replicas are moved out of it (the work ends).
RequestDecision decision_of(SchedulerWork& work, RequestDecision::Status status,
                            const std::vector<RequestDecision::Diagnosis>& diagnoses,
                            std::vector<std::string> notes,
                            std::chrono::steady_clock::time_point now) {
  RequestDecision decision;
  decision.request_id = work.id;
  decision.status = status;
  decision.replicas = std::move(work.placed);
  decision.diagnoses = diagnoses;
  for (const auto& found : diagnoses) {
    decision.reasons.push_back(found.cluster + ": " + found.plugin + ": " + found.reason);
  }
  decision.reasons.insert(decision.reasons.end(), std::make_move_iterator(notes.begin()),
                          std::make_move_iterator(notes.end()));
  if (!work.quota_held.empty()) {
    decision.queue = work.spec.queue;
    decision.quota_placements = work.quota_held;
  }
  decision.attempts = work.attempts;
  decision.latency_us =
      std::chrono::duration_cast<std::chrono::microseconds>(now - work.submitted).count();
  return decision;
}

}  // namespace

SchedulerOutcomes::SchedulerOutcomes(const policy::Policy& policy, const SchedulerRounds& rounds,
                                     size_t max_tracked, bool quotas, Requeue requeue)
    : policy_(policy),
      rounds_(rounds),
      quotas_(quotas),
      requeue_(std::move(requeue)),
      tracking_(max_tracked, quotas) {}

SchedulerCommands SchedulerOutcomes::finish(std::unique_ptr<SchedulerWork> work,
                                            Decision::Status status,
                                            const std::vector<Decision::Diagnosis>& diagnoses,
                                            std::vector<std::string> notes, Clock::time_point now) {
  Decision decision = decision_of(*work, status, diagnoses, std::move(notes), now);
  SchedulerCommands out;
  if (work->admitted) {  // its admission hold goes, if the take did not replace it
    out.quota_withdrawals.push_back(work->id);
  }
  if (!work->replaces.empty()) {
    replace(*work, decision, out, now);
    return out;
  }
  count_latency(counts_, std::chrono::duration<double>(now - work->submitted).count());
  count_status(counts_, status);
  if (!decision.replicas.empty()) {
    track(*work, decision, out, now);
  }
  if (work->ticket != 0) {
    out.replies.emplace_back(work->ticket, std::move(decision));
  }
  return out;
}

void SchedulerOutcomes::track(SchedulerWork& work, const Decision& decision, SchedulerCommands& out,
                              Clock::time_point now) {
  observe(policy_, work, decision);
  out.append(tracking_.track(work.request_id, std::move(work.spec), decision));
  place_refused_early(decision, out, now);
}

void SchedulerOutcomes::replace(const SchedulerWork& work, const Decision& placed,
                                SchedulerCommands& out, Clock::time_point now) {
  SchedulerTracking::Replaced replaced = tracking_.replaced(work, placed);
  out.append(std::move(replaced.commands));
  if (replaced.kept) {
    observe(policy_, work, placed);
    place_refused_early(placed, out, now);
  }
}

void SchedulerOutcomes::place_refused_early(const Decision& decision, SchedulerCommands& out,
                                            Clock::time_point now) {
  // All taken out first: placing one again may start a round, which forgets the refusals kept
  // for the round before (found by `unisched simulate`, seed 2843: the second of two refused
  // replicas stayed in the decision and never ran).
  for (const auto& [placement_id, reason] : tracking_.take_early_refusals(decision)) {
    out.append(on_refused_placement(placement_id, reason, now));
  }
}

SchedulerCommands SchedulerOutcomes::on_refused_placement(const std::string& placement_id,
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
  ++counts_.requeued;
  SchedulerCommands out;
  // The submitter learns the request is back in this scheduler's hands: should the scheduler
  // stop now, the hub gives it up (and releases it) rather than keep a decision that lies.
  out.updates.push_back(std::move(*refusal.update));
  if (quotas_) {
    out.quota_releases.push_back(placement_id);  // the replacement takes quota of its own
  }
  out.append(requeue_(std::move(refusal.again), now));
  return out;
}

SchedulerCommands SchedulerOutcomes::on_cluster_actor_lost(const std::string& cluster,
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

void SchedulerOutcomes::add_counts(SchedulerCounts& counts) const {
  counts.placed = counts_.placed;
  counts.partially_placed = counts_.partially_placed;
  counts.unschedulable = counts_.unschedulable;
  counts.requeued = counts_.requeued;
  counts.decision_latency_buckets = counts_.decision_latency_buckets;
  counts.decision_latency_seconds_sum = counts_.decision_latency_seconds_sum;
  counts.tracked = tracking_.size();
  counts.forgotten_unsettled = tracking_.forgotten_unsettled();
}

}  // namespace unisched::actors
