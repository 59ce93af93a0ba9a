// What a scheduler counts of its work. Plain C++; the scheduler actor sends it as a
// v1::SchedulerSummary (actors/scheduler_wire.hpp), whose comments say what each count means.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace unisched::actors {

struct SchedulerCounts {
  uint64_t requests = 0;
  uint64_t placed = 0;
  uint64_t partially_placed = 0;
  uint64_t unschedulable = 0;
  uint64_t commits = 0;
  uint64_t conflicts = 0;
  uint64_t retries = 0;
  uint64_t requeued = 0;
  uint64_t refused_queue_full = 0;
  uint64_t commits_timed_out = 0;
  uint64_t forgotten_unsettled = 0;
  uint64_t waiting = 0;
  uint64_t tracked = 0;
  uint64_t quota_queued = 0;
  uint64_t waiting_for_quota = 0;
  uint64_t quota_lease_takes = 0;
  /// Requests decided, per bucket of kLatencyBoundsSeconds (messages/latency_buckets.hpp), the
  /// last for above every bound; empty until the first decision.
  std::vector<uint64_t> decision_latency_buckets;
  double decision_latency_seconds_sum = 0;
  /// Requests not decided yet, by where they wait (messages/undecided_reasons.hpp).
  std::map<std::string, uint64_t> undecided_by_reason;
  double oldest_undecided_seconds = 0;  ///< 0: none waits
};

}  // namespace unisched::actors
