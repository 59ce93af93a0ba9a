// A request's decision as a scheduler's core makes it: where its replicas went, why the rest
// did not, what budget they hold. Plain C++; the scheduler actor sends it as a
// v1::SchedulingDecision (actors/scheduler_wire.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cores/quota_amounts.hpp"

namespace unisched::actors {

struct RequestDecision {
  enum class Status {
    Placed,
    PartiallyPlaced,
    Unschedulable,
    Queued,  ///< over its queue's budget: it waits for quota (not a final decision)
  };
  /// One placement: the node, and the node's devices it took.
  struct Replica {
    std::string placement_id;
    std::string cluster;
    std::string node;
    std::vector<int32_t> devices;
    std::vector<int32_t> device_milli;  ///< of each device (a share); empty: whole devices
  };
  /// Why a cluster took none (or not all) of the request: the filter that refused it, or
  /// "distribution", or "commit" when the cluster refused the commit, or "quota".
  struct Diagnosis {
    std::string cluster;
    std::string plugin;
    std::string reason;
  };

  std::string request_id;
  Status status = Status::Unschedulable;
  std::vector<Replica> replicas;
  std::vector<std::string>
      reasons;             ///< the diagnoses as lines, "cluster: plugin: reason", and notes
  uint32_t attempts = 0;   ///< decisions made (1 + retries after conflicts)
  int64_t latency_us = 0;  ///< from submission to this decision
  std::vector<Diagnosis> diagnoses;
  std::string queue;                 ///< the quota queue its replicas are charged to
  QuotaPlacements quota_placements;  ///< what each replica holds of that budget, by placement
  /// Replicas refused by their cluster and being placed again: a later decision follows.
  uint32_t replacing = 0;
};

}  // namespace unisched::actors
