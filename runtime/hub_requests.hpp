// The hub's decisions about requests, without the actor: which scheduler decides each accepted
// request, what every scheduler is deciding, what a decision or a stopped scheduler changes in
// the book, and which decided requests the hub follows itself (Reconciliation). Plain C++ (no
// CAF): every call returns the commands the hub actor then carries out, so the rules are tested
// without an actor system. Schedulers are named by their actor ids.
#pragma once

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

namespace unisched::runtime {

/// What the hub actor does after a call.
struct HubCommands {
  /// Send each request to the scheduler of that id; report its decision with decided(), or its
  /// failure to answer with not_decided().
  std::vector<std::pair<uint64_t, RequestBook::ToSchedule>> submissions;
  /// These requests are decided (or given up): answer whoever waits for them.
  std::vector<std::string> answers;
  /// Requests given up: every cluster releases what they placed.
  struct GivenUp {
    std::vector<std::string> ids;
    std::string reason;
  };
  std::vector<GivenUp> given_up;
  /// The book's journal cannot be written: decisions survive no restart (say so).
  bool journal_failed = false;
};

class HubRequests {
 public:
  HubRequests(std::shared_ptr<RequestBook> book, std::vector<uint64_t> schedulers);

  /// After a restart: releases what requests recovered as LOST placed, and follows those
  /// recovered as placed (orders for them may have been lost with the old centre).
  HubCommands start();
  /// Accepted requests go to the schedulers in turn; with none, they stay pending.
  HubCommands schedule(std::vector<RequestBook::ToSchedule> work);
  /// The scheduler's answer to a submission.
  HubCommands decided(uint64_t scheduler, const v1::SchedulingDecision& decision);
  /// The scheduler could not be asked or did not answer: the request is unschedulable.
  HubCommands not_decided(uint64_t scheduler, const std::string& request_id,
                          const std::string& error);
  /// A scheduler placed a refused replica again: the decision as it now stands. While a replica
  /// is placed again, the request is that scheduler's again.
  HubCommands changed(uint64_t scheduler, const v1::SchedulingDecision& decision);
  /// A scheduler stopped: it takes no more work, what it was deciding is LOST (and released),
  /// and what it decided is followed by the hub until it runs.
  HubCommands scheduler_stopped(uint64_t scheduler);
  /// The reconciliation found placements that will never run: their requests are LOST.
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

  std::shared_ptr<RequestBook> book_;
  std::vector<uint64_t> schedulers_;
  size_t next_scheduler_ = 0;
  std::map<uint64_t, std::set<std::string>> in_flight_;  // scheduler -> requests it decides
  Reconciliation reconciliation_;  // decided requests no scheduler follows any more
};

}  // namespace unisched::runtime
