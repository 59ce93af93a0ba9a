// A SchedulerActor's logic without the actor: decisions and their commit rounds (one at a time,
// or several with node-level checks), retries, and the ledger's part in a round. Plain C++ (no
// CAF): every method returns the commands the actor then sends (SchedulerCommands), so the
// protocol is tested without an actor system. It speaks plain types (RequestDecision,
// SchedulerCounts); its actor puts them on the wire. It holds its collaborators, each tested alone:
// the copies of the clusters' views (SchedulerViews), the queue (SchedulerQueue), the rounds in
// flight (SchedulerRounds), its side of the quota protocol (SchedulerQuota) and what finished
// work comes to (SchedulerOutcomes: decisions answered, placements tracked until settled).
//
// The commit round is explicit. Each outstanding commit ends as accepted, conflict, refused or
// timed out. A timed-out commit is released at its cluster at once: the release follows the
// commit on the same link, so a cluster that did reserve it (and whose answer was lost or late)
// undoes it, and one that never saw it ignores it. No reservation outlives its request.
//
// Memory is bounded: at most `max_queue` requests wait (more are refused, and counted), and at
// most `max_tracked` decided requests are tracked (SchedulerTracking).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cores/cluster_core.hpp"
#include "cores/scheduler_commands.hpp"
#include "cores/scheduler_counts.hpp"
#include "cores/scheduler_outcomes.hpp"
#include "cores/scheduler_quota.hpp"
#include "cores/scheduler_rounds.hpp"
#include "cores/scheduler_views.hpp"
#include "cores/scheduler_work.hpp"
#include "model/view_update.hpp"
#include "policy/framework.hpp"
#include "policy/pipeline.hpp"

namespace unisched::actors {

struct SchedulerSettings {
  CommitMode commit_mode = CommitMode::ClusterRevision;
  int max_retries = 5;
  std::chrono::milliseconds commit_timeout{2000};
  /// Seeds each decision's draws (with the request id); 0: a seed of its own.
  uint64_t draw_seed = 0;
  size_t max_queue = 10'000;
  size_t max_tracked = 10'000;
  /// A quota ledger takes part in every commit round of a request with a queue (its take comes
  /// first; the clusters' commits follow only once it is taken).
  bool quotas = false;
  /// Decisions whose commits may be in flight at once. More than one only with node-level
  /// checks (every commit changes a cluster's revision, so a second decision on the same copy
  /// would conflict with the first): a decision then leaves alone the nodes that commits in
  /// flight touch, so this scheduler's decisions never conflict with each other.
  size_t max_in_flight = 1;
  /// The actor's waits: for the directory's or a ClusterActor's answer (a subscription, a view),
  /// for a release's acknowledgement before it is sent again, and after a failed subscription
  /// before it tries again.
  std::chrono::milliseconds ask_timeout{2000};
  std::chrono::milliseconds release_ack_timeout{1000};
  std::chrono::milliseconds resubscribe_after{100};

  /// Decisions whose commits may be in flight at once, as the commit mode allows.
  size_t in_flight_limit() const {
    return commit_mode == CommitMode::NodeRevisions ? std::max<size_t>(1, max_in_flight) : 1;
  }
};

class SchedulerCore {
 public:
  using Clock = std::chrono::steady_clock;

  SchedulerCore(policy::Policy policy, SchedulerSettings settings);
  ~SchedulerCore();
  SchedulerCore(const SchedulerCore&) = delete;
  SchedulerCore& operator=(const SchedulerCore&) = delete;

  // --- Clusters ---------------------------------------------------------------------------
  /// The copies of the clusters' views it decides on.
  SchedulerViews& views() { return views_; }
  const SchedulerViews& views() const { return views_; }

  // --- Requests -----------------------------------------------------------------------------
  /// Queues a request; its decision comes back as a reply with `ticket`.
  SchedulerCommands submit(std::string id, model::SchedulingRequestSpec spec, uint64_t ticket,
                           Clock::time_point now);
  /// Starts the next decisions while fewer than max_in_flight are (after clusters change, say).
  SchedulerCommands advance(Clock::time_point now);
  SchedulerCommands on_commit_result(uint64_t round, const std::string& cluster,
                                     CommitResult result, const std::string& reason,
                                     Clock::time_point now);
  SchedulerCommands on_quota_result(uint64_t round, QuotaResult result, const std::string& reason,
                                    Clock::time_point now);
  /// Its side of the quota protocol: leases granted and revoked are told to it directly.
  SchedulerQuota& quota() { return quota_; }
  /// The ledger holds budget for this waiting work: decide it again.
  SchedulerCommands on_admitted(const std::string& work_id, Clock::time_point now);
  /// The views asked for by `refresh` are in (or could not be fetched): decide again.
  SchedulerCommands on_refreshed(uint64_t round, Clock::time_point now);
  /// The cluster could not carry a committed placement out: place that replica again.
  SchedulerCommands on_refused_placement(const std::string& placement_id, const std::string& reason,
                                         Clock::time_point now) {
    return outcomes_.on_refused_placement(placement_id, reason, now);
  }
  /// The cluster's ClusterActor went away: it forgot the placements the cluster had not
  /// confirmed yet, and an order for one may have been lost with it, so none may ever run. Each
  /// is released there (should its order still arrive, the release ends it) and placed again.
  SchedulerCommands on_cluster_actor_lost(const std::string& cluster, Clock::time_point now) {
    return outcomes_.on_cluster_actor_lost(cluster, now);
  }
  /// The cluster carried these placements out: nothing more will come of them.
  SchedulerCommands on_settled(const std::vector<std::string>& placement_ids) {
    return outcomes_.on_settled(placement_ids);
  }

  /// Its counters, and the requests not decided yet at `now` by where they wait.
  SchedulerCounts counts(Clock::time_point now) const;
  size_t waiting() const { return queue_.size(); }
  size_t waiting_for_quota() const { return quota_.parked(); }
  size_t tracked() const { return outcomes_.tracked(); }
  size_t deciding() const { return rounds_.size(); }

 private:
  /// One request (or one refused replica of one) on its way to a decision.
  using Work = SchedulerWork;
  using Round = CommitRound;
  /// The work's decision on the local views; nullopt when it must wait for the commits in flight
  /// (it did not place everything while their nodes were left alone).
  std::optional<policy::Decision> decide(Work& work);
  /// Finishes the work that nothing could take, or starts its commit round.
  SchedulerCommands act_on(std::unique_ptr<Work> work, const policy::Decision& decision,
                           Clock::time_point now);
  SchedulerCommands start_round(std::unique_ptr<Work> work, const policy::Decision& decision);
  /// The round's commits go out now; with a ledger and a queue, its take goes first.
  SchedulerCommands send_round(Round& round, std::vector<ClusterCommit> commits);
  /// Closes the round once every cluster and the ledger answered.
  SchedulerCommands maybe_close(Round& round, Clock::time_point now);
  /// The work waits for quota: parked until the ledger admits it.
  SchedulerCommands park(Round& round, const std::string& reason, Clock::time_point now);
  SchedulerCommands close_round(Round& round, Clock::time_point now);
  SchedulerCommands enqueue(std::unique_ptr<Work> work, Clock::time_point now);

  policy::Policy policy_;
  SchedulerSettings settings_;
  SchedulerViews views_;
  SchedulerQueue queue_;
  SchedulerRounds rounds_;  // decisions whose commits are in flight
  SchedulerQuota quota_;
  SchedulerOutcomes outcomes_;  // decisions answered, placements tracked until settled
  SchedulerCounts counts_;      // what it counts itself (outcomes_ adds the rest)
};

}  // namespace unisched::actors
