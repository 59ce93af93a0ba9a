#include "actors/scheduler_wire.hpp"

#include <string>
#include <utility>

#include "cores/quota_wire.hpp"

namespace unisched::actors {
namespace {

v1::SchedulingDecision::Status status_to_wire(RequestDecision::Status status) {
  switch (status) {
    case RequestDecision::Status::Placed:
      return v1::SchedulingDecision::PLACED;
    case RequestDecision::Status::PartiallyPlaced:
      return v1::SchedulingDecision::PARTIALLY_PLACED;
    case RequestDecision::Status::Unschedulable:
      return v1::SchedulingDecision::UNSCHEDULABLE;
    case RequestDecision::Status::Queued:
      return v1::SchedulingDecision::QUEUED;
  }
  return v1::SchedulingDecision::STATUS_UNSPECIFIED;
}

}  // namespace

v1::SchedulingDecision::Replica to_wire(RequestDecision::Replica replica) {
  v1::SchedulingDecision::Replica out;
  out.set_placement_id(std::move(replica.placement_id));
  out.set_cluster(std::move(replica.cluster));
  out.set_node(std::move(replica.node));
  out.mutable_devices()->Add(replica.devices.begin(), replica.devices.end());
  out.mutable_device_milli()->Add(replica.device_milli.begin(), replica.device_milli.end());
  return out;
}

v1::SchedulingDecision to_wire(RequestDecision decision) {
  v1::SchedulingDecision out;
  out.set_request_id(std::move(decision.request_id));
  out.set_status(status_to_wire(decision.status));
  out.mutable_replicas()->Reserve(static_cast<int>(decision.replicas.size()));
  for (RequestDecision::Replica& replica : decision.replicas) {
    *out.add_replicas() = to_wire(std::move(replica));
  }
  for (std::string& reason : decision.reasons) {
    out.add_reasons(std::move(reason));
  }
  out.set_attempts(decision.attempts);
  out.set_latency_us(decision.latency_us);
  for (RequestDecision::Diagnosis& diagnosis : decision.diagnoses) {
    v1::SchedulingDecision::Diagnosis& wired = *out.add_diagnoses();
    wired.set_cluster(std::move(diagnosis.cluster));
    wired.set_plugin(std::move(diagnosis.plugin));
    wired.set_reason(std::move(diagnosis.reason));
  }
  out.set_queue(std::move(decision.queue));
  for (const auto& [id, placement] : decision.quota_placements) {
    *out.add_quota_placements() = to_wire(id, placement);
  }
  out.set_replacing(decision.replacing);
  return out;
}

v1::SchedulerSummary to_wire(const SchedulerCounts& counts) {
  v1::SchedulerSummary out;
  out.set_requests(counts.requests);
  out.set_placed(counts.placed);
  out.set_partially_placed(counts.partially_placed);
  out.set_unschedulable(counts.unschedulable);
  out.set_commits(counts.commits);
  out.set_conflicts(counts.conflicts);
  out.set_retries(counts.retries);
  out.set_requeued(counts.requeued);
  out.set_refused_queue_full(counts.refused_queue_full);
  out.set_commits_timed_out(counts.commits_timed_out);
  out.set_forgotten_unsettled(counts.forgotten_unsettled);
  out.set_waiting(counts.waiting);
  out.set_tracked(counts.tracked);
  out.set_quota_queued(counts.quota_queued);
  out.set_waiting_for_quota(counts.waiting_for_quota);
  out.set_quota_lease_takes(counts.quota_lease_takes);
  out.mutable_decision_latency_buckets()->Add(counts.decision_latency_buckets.begin(),
                                              counts.decision_latency_buckets.end());
  out.set_decision_latency_seconds_sum(counts.decision_latency_seconds_sum);
  out.mutable_undecided_by_reason()->insert(counts.undecided_by_reason.begin(),
                                            counts.undecided_by_reason.end());
  out.set_oldest_undecided_seconds(counts.oldest_undecided_seconds);
  return out;
}

}  // namespace unisched::actors
