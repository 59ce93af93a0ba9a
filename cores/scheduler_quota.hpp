// A scheduler's side of the quota protocol (README, "Quotas across clusters"): each commit
// round's take, from the queue's lease or asked of the ledger; what the ledger's answer does to
// the round; the work parked while the ledger queues it, and decided again once admitted.
// Plain C++; SchedulerCore holds one and routes the ledger's messages to it.
//
// A placement takes cpu in milli-cores, memory in bytes, and devices in milli-units (a share of
// a device takes its share) under their kind ("GPU": every GPU, whatever its vendor or naming,
// so no device escapes a quota) and under their resource name ("nvidia.com/gpu") where the
// cluster or the request names one; with where it is, for the quota's caps.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "cores/quota_amounts.hpp"
#include "cores/scheduler_commands.hpp"
#include "cores/scheduler_leases.hpp"
#include "cores/scheduler_rounds.hpp"
#include "cores/scheduler_views.hpp"
#include "cores/scheduler_work.hpp"

namespace unisched::actors {

/// How the quota ledger answered a take.
enum class QuotaResult { Taken, Queued, Refused, TimedOut };

/// What a placement on `local` takes of its queue's budget.
QuotaPlacement quota_placement_of(const SchedulerViews::Cluster& local,
                                  const policy::ReplicaPlacement& placement,
                                  const model::SchedulingRequestSpec& spec);

class SchedulerQuota {
 public:
  /// The ledger granted a lease of `queue`'s budget with a take: later takes of the queue that
  /// it covers are made here, without a round trip.
  void grant_lease(const std::string& queue, QuotaLease lease) {
    leases_.grant(queue, std::move(lease));
  }
  /// The ledger wants the lease back: what is left of it is released.
  SchedulerCommands on_lease_revoked(const std::string& lease_id);

  /// The round's take, before its commits go out: from its queue's lease when that covers it
  /// (the ledger is told after the fact), else asked of the ledger. Returns whether the commits
  /// wait for the ledger's answer: a queue whose last take had to wait is near its budget, so
  /// its commits wait, and an over-budget decision never starts work only to stop it again.
  bool start_take(CommitRound& round, SchedulerCommands& out);

  /// What the core does with a round once the ledger answered its take.
  enum class Next {
    Ignore,       ///< an answer to a round that is over, or not waiting for one
    SendCommits,  ///< taken: the commits held for it go out now
    Park,         ///< queued with its commits held: nothing was committed; park the work
    CloseIfDone,  ///< close the round once the clusters answered too
  };
  /// Records the ledger's answer in the round (a take that failed is a failed "quota" step
  /// whose placements, if perhaps taken, are given back into `out`).
  Next on_answer(CommitRound* round, QuotaResult result, const std::string& reason,
                 SchedulerCommands& out);

  /// Parks work the ledger queued; gives it back when the ledger admitted it already (it was
  /// admitted while its round was still open), to decide again now.
  std::unique_ptr<SchedulerWork> park(std::unique_ptr<SchedulerWork> work);
  /// The ledger holds budget for `work_id`: the parked work to decide again, or null. Work not
  /// parked yet but `deciding` is remembered as admitted early; any other is given back.
  std::unique_ptr<SchedulerWork> admit(const std::string& work_id, bool deciding,
                                       SchedulerCommands& out);

  size_t parked() const { return parked_.size(); }
  template <class Visit>
  void visit_parked(Visit visit) const {
    for (const auto& [id, work] : parked_) {
      visit(*work);
    }
  }
  uint64_t lease_takes() const { return lease_takes_; }
  uint64_t queued() const { return queued_; }

 private:
  /// Takes the round's quota from its queue's lease if that covers it; a lease that does not
  /// is given back (released into `out`).
  bool take_from_lease(CommitRound& round, SchedulerCommands& out);

  SchedulerLeases leases_;
  std::map<std::string, std::unique_ptr<SchedulerWork>> parked_;  // by work id
  std::set<std::string> admitted_early_;  // admitted before its work was parked
  uint64_t lease_takes_ = 0;
  uint64_t queued_ = 0;
};

}  // namespace unisched::actors
