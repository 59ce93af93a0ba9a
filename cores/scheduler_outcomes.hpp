// What a scheduler's decisions come to: each request's decision (its replicas, reasons, quota
// and latency) answered to its submitter, the replicas it placed tracked until their clusters
// settle them (SchedulerTracking), a replica a cluster refused placed again, and the counts of
// it all. Plain C++; SchedulerCore hands it each finished piece of work.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cores/request_decision.hpp"
#include "cores/scheduler_commands.hpp"
#include "cores/scheduler_counts.hpp"
#include "cores/scheduler_rounds.hpp"
#include "cores/scheduler_tracking.hpp"
#include "cores/scheduler_work.hpp"
#include "policy/framework.hpp"

namespace unisched::actors {

class SchedulerOutcomes {
 public:
  using Clock = std::chrono::steady_clock;
  using Decision = RequestDecision;
  /// Puts work back in line (a refused replica to place again); returns what that sets off.
  using Requeue =
      std::function<SchedulerCommands(std::unique_ptr<SchedulerWork>, Clock::time_point)>;

  /// `rounds`: the scheduler's rounds in flight (a refusal may overtake its round's answer);
  /// `quotas`: placements hold quota, given back when a replica is placed again.
  SchedulerOutcomes(const policy::Policy& policy, const SchedulerRounds& rounds, size_t max_tracked,
                    bool quotas, Requeue requeue);

  /// Ends the work: its decision answered (or, for a replica placed again, its request's
  /// decision changed), its counts, its tracking.
  SchedulerCommands finish(std::unique_ptr<SchedulerWork> work, Decision::Status status,
                           const std::vector<Decision::Diagnosis>& diagnoses,
                           std::vector<std::string> notes, Clock::time_point now);
  /// The cluster could not carry a committed placement out: that replica is placed again.
  SchedulerCommands on_refused_placement(const std::string& placement_id, const std::string& reason,
                                         Clock::time_point now);
  /// The cluster's ClusterActor went away with the placements it had not confirmed: each is
  /// released there and placed again.
  SchedulerCommands on_cluster_actor_lost(const std::string& cluster, Clock::time_point now);
  /// The cluster carried these placements out: nothing more will come of them.
  SchedulerCommands on_settled(const std::vector<std::string>& placement_ids) {
    return tracking_.settle(placement_ids);
  }
  /// These replicas were not kept (released, or never reserved): refusals of theirs that came
  /// early are forgotten.
  void not_kept(const std::vector<Decision::Replica>& replicas) {
    tracking_.forget_early_refusals(replicas);
  }

  /// Adds what it counted to a scheduler's counts.
  void add_counts(SchedulerCounts& counts) const;
  size_t tracked() const { return tracking_.size(); }

 private:
  /// Keeps what `decision` placed until it settles, taking the spec of `work` (which ends).
  void track(SchedulerWork& work, const Decision& decision, SchedulerCommands& out,
             Clock::time_point now);
  /// The replica `work` placed again (or could not) changes its request's decision.
  void replace(const SchedulerWork& work, const Decision& placed, SchedulerCommands& out,
               Clock::time_point now);
  /// Places again the replicas of `decision` whose refusal came before the decision was made.
  void place_refused_early(const Decision& decision, SchedulerCommands& out, Clock::time_point now);

  const policy::Policy& policy_;
  const SchedulerRounds& rounds_;
  bool quotas_;
  Requeue requeue_;
  SchedulerTracking tracking_;
  SchedulerCounts counts_;  // decided, placed again, latency
};

}  // namespace unisched::actors
