// What a scheduler remembers of decided work: each placement until its cluster settles it (so a
// refused replica can be placed again, and a gang given up when one finds no place), the
// refusals that overtook their commit's answer, and the bound on both. Plain C++ (no CAF).
//
// Memory is bounded: at most `max_tracked` requests are tracked (the oldest is forgotten first,
// and counted); a request is forgotten once every placement settled.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <absl/container/node_hash_map.h>

#include "cores/scheduler_commands.hpp"
#include "cores/scheduler_work.hpp"

namespace unisched::actors {

class SchedulerTracking {
 public:
  /// `quotas`: placements hold quota, so every placement released gives its quota back too.
  SchedulerTracking(size_t max_tracked, bool quotas) : max_tracked_(max_tracked), quotas_(quotas) {}

  /// A refused placement, taken out of its request's tracking.
  struct Refusal {
    /// The replica to place again (one replica of the request, away from the nodes that
    /// refused it); null when the placement is not tracked.
    std::unique_ptr<SchedulerWork> again;
    /// The request's decision, now counting one more replica being placed again: its submitter
    /// learns the request is back in this scheduler's hands.
    std::optional<RequestDecision> update;
  };

  /// Keeps what `decision` placed until it settles, taking the request's spec.
  SchedulerCommands track(const std::string& request_id, model::SchedulingRequestSpec spec,
                          const RequestDecision& decision);
  /// The cluster refused placement `id`: it is no longer the request's.
  Refusal refuse(const std::string& placement_id, const std::string& reason,
                 std::chrono::steady_clock::time_point now);
  /// What came of a replica placed again.
  struct Replaced {
    SchedulerCommands commands;
    /// The replicas placed are the request's now (false: the request was forgotten meanwhile,
    /// or its gang given up, and they are released).
    bool kept = false;
  };
  /// The replica `work` placed again (or could not): its request's decision changes.
  Replaced replaced(const SchedulerWork& work, const RequestDecision& placed);
  /// The cluster carried these placements out: nothing more will come of them.
  SchedulerCommands settle(const std::vector<std::string>& placement_ids);
  /// The placements on `cluster` that it has not settled, by request id.
  std::vector<std::string> unsettled_on(const std::string& cluster) const;

  /// A refusal that came before the commit's answer: kept until the round is decided.
  void refused_early(const std::string& placement_id, const std::string& reason);
  /// These replicas were not kept (released, or never reserved): their early refusals go.
  void forget_early_refusals(const std::vector<RequestDecision::Replica>& replicas);
  /// The early refusals of the replicas `decision` placed, taken out: (placement, reason).
  std::vector<std::pair<std::string, std::string>> take_early_refusals(
      const RequestDecision& decision);

  size_t size() const { return tracked_.size(); }
  /// Requests forgotten with placements unsettled, to stay within the bound.
  uint64_t forgotten_unsettled() const { return forgotten_unsettled_; }

 private:
  /// A decided request whose placements are not all settled yet.
  struct Tracked {
    model::SchedulingRequestSpec spec;
    RequestDecision decision;  ///< as last sent
    absl::flat_hash_set<std::string> unsettled;
    size_t replacing = 0;                  ///< its refused replicas being placed again
    std::set<policy::NodeRef> refused_on;  ///< nodes that refused its replicas
    bool gang_released = false;            ///< a gang given up after a replica found no place
  };

  /// Releases the replicas of `decision` at their clusters (and their quota) and stops tracking
  /// them.
  void release_replicas(const RequestDecision& decision, SchedulerCommands& out);
  void give_up_gang(Tracked& tracked, RequestDecision& decision, SchedulerCommands& out);
  void forget_if_settled(const std::string& request_id, SchedulerCommands& out);
  void bound(SchedulerCommands& out);

  size_t max_tracked_;
  bool quotas_;
  // Hashed: every decision adds to both and every settlement takes from both, at up to
  // max_tracked entries (ordered maps of them were 6% of a busy scheduler). Nodes keep
  // references to a Tracked valid while others come and go; nothing depends on their order.
  absl::node_hash_map<std::string, Tracked> tracked_;  // request id -> what was decided
  std::deque<std::string> tracked_order_;              // oldest first
  absl::flat_hash_map<std::string, std::string> placement_request_;  // placement id -> request
  std::map<std::string, std::string> refused_early_;  // of open rounds: placement -> reason
  uint64_t forgotten_unsettled_ = 0;
};

}  // namespace unisched::actors
