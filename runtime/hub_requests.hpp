// The hub's decisions about requests, without the actor: which scheduler decides each accepted
// request, what every scheduler is deciding, what a decision or a stopped scheduler changes in
// the book, and which decided requests the hub follows itself (Reconciliation). No accepted
// request is dropped: one whose decision was lost (its scheduler stopped, the hub restarted) or
// one of whose placements will never run is decided again under its next attempt, and what the
// earlier attempt placed is released everywhere. Plain C++ (no CAF): every call returns the
// commands the hub actor then carries out, so the rules are tested without an actor system.
// Schedulers are named by their actor ids; requests reach them by their attempt's key.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "messages/unisched.pb.h"
#include "runtime/reconciliation.hpp"
#include "runtime/request_book.hpp"
#include "runtime/restart_gate.hpp"

namespace unisched::runtime {

/// What the hub actor does after a call.
struct HubCommands {
  /// Send each request to the scheduler of that id; report its decision with decided(), or its
  /// failure to answer with not_decided().
  std::vector<std::pair<uint64_t, RequestBook::ToSchedule>> submissions;
  /// These requests are decided (or given up): answer whoever waits for them.
  std::vector<std::string> answers;
  /// Attempts given up, by key (model/request_attempt.hpp): every cluster releases what they
  /// placed and refuses their commits.
  struct GivenUp {
    std::vector<std::string> ids;
    std::string reason;
  };
  std::vector<GivenUp> given_up;
  /// Requests decided again under a new attempt (their earlier attempt is in `given_up`).
  size_t decided_again = 0;
  /// The book's journal cannot be written: decisions survive no restart (say so).
  bool journal_failed = false;

  void append(HubCommands&& later);
};

class HubRequests {
 public:
  HubRequests(std::shared_ptr<RequestBook> book, std::vector<uint64_t> schedulers);

  using Clock = RestartGate::Clock;

  /// After a restart: releases what the requests undecided at the stop placed under their
  /// earlier attempt, and follows those recovered as placed (orders for them may have been lost
  /// with the old centre). The undecided requests are decided again once the clusters are back
  /// (see cluster_synced()): every cluster of `declared` (applied profiles) and of the recovered
  /// decisions, or any one when there are none, or else at `deadline`.
  HubCommands start(const std::set<std::string>& declared, Clock::time_point deadline);
  /// What the requests undecided at a restart (and those accepted since) wait for.
  const RestartGate& restart_gate() const { return gate_; }
  /// The cluster's view is in step with its agent again: once every awaited one is, the
  /// requests undecided at the restart are scheduled.
  HubCommands cluster_synced(const std::string& cluster);
  /// Time passes: past the deadline, they are scheduled whichever clusters are back.
  HubCommands tick(Clock::time_point now);
  /// Accepted requests go to the schedulers in turn; with none, they stay pending. While the
  /// requests undecided at a restart wait for the clusters, they wait behind them.
  HubCommands schedule(std::vector<RequestBook::ToSchedule> work);
  /// The scheduler's answer to a submission. An earlier attempt's is stale: what it placed is
  /// released.
  HubCommands decided(uint64_t scheduler, const v1::SchedulingDecision& decision);
  /// The scheduler could not be asked or did not answer (it stopped): it takes no more work, and
  /// the request is decided again by another.
  HubCommands not_decided(uint64_t scheduler, const std::string& attempt_key,
                          const std::string& error);
  /// A scheduler placed a refused replica again: the decision as it now stands. While a replica
  /// is placed again, the request is that scheduler's again.
  HubCommands changed(uint64_t scheduler, const v1::SchedulingDecision& decision);
  /// A scheduler stopped: it takes no more work, what it was deciding is decided again by the
  /// others, and what it decided is followed by the hub until it runs.
  HubCommands scheduler_stopped(uint64_t scheduler);
  /// The reconciliation found placements that will never run: their requests are decided again.
  HubCommands give_up(const std::vector<Reconciliation::GiveUp>& requests);
  /// These placements' work ended on `cluster`.
  void finished(const std::string& cluster, const std::vector<std::string>& placement_ids);

  /// Whether a scheduler is deciding the request now.
  bool deciding(const std::string& request_id) const;
  /// How many requests the schedulers are deciding now.
  size_t in_flight() const;
  RequestBook& book() { return *book_; }
  const RequestBook& book() const { return *book_; }
  Reconciliation& reconciliation() { return reconciliation_; }
  const Reconciliation& reconciliation() const { return reconciliation_; }

 private:
  HubCommands record(uint64_t scheduler, const v1::SchedulingDecision& decision);
  /// Decides these requests again under their next attempts (`reason` says why), on the
  /// schedulers that remain.
  HubCommands decide_again(const std::vector<std::string>& request_ids, const std::string& reason);
  /// Hands `work` to the schedulers in turn.
  HubCommands dispatch(std::vector<RequestBook::ToSchedule> work);
  /// Whether `attempt_key` names the current attempt of its request.
  bool current(const std::string& attempt_key) const;
  /// Whether the request is known and decided under a later attempt than `attempt_key`'s.
  bool superseded(const std::string& attempt_key) const;

  std::shared_ptr<RequestBook> book_;
  std::vector<uint64_t> schedulers_;
  size_t next_scheduler_ = 0;
  std::map<uint64_t, std::set<std::string>> in_flight_;  // scheduler -> attempts it decides
  RestartGate gate_;
  Reconciliation reconciliation_;  // decided requests no scheduler follows any more
};

}  // namespace unisched::runtime
