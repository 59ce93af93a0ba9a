// The commit round of one decision, as SchedulerState keeps it (private to its .cpp files).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "actors/scheduler_state.hpp"

namespace unisched::actors {

/// The commits of one decision, in flight.
struct SchedulerState::Round {
  uint64_t id = 0;
  std::unique_ptr<Work> work;
  std::map<std::string, std::vector<v1::SchedulingDecision::Replica>> replicas;  // per cluster
  std::map<std::string, std::vector<uint64_t>> replica_numbers;  // per cluster, of `replicas`
  std::set<std::string> outstanding;                             // clusters yet to answer
  std::map<std::string, uint64_t> incarnations;  // each cluster's when its commit went out
  std::vector<std::string> accepted;
  std::set<std::string> failed;
  std::vector<v1::SchedulingDecision::Diagnosis> failures;  // why the failed clusters failed
  bool partial = false;  // the decision placed only some replicas
  std::vector<v1::SchedulingDecision::Diagnosis> partial_diagnoses;
  bool refreshing = false;                      // waiting for views before deciding again
  QuotaPlacements quota;                        // what the round takes
  std::vector<v1::CommitRequest> held_commits;  // sent once the ledger took the quota
  bool quota_pending = false;                   // the ledger has not answered yet
  bool quota_taken = false;
  std::optional<std::string> quota_queued;  // the ledger queued the work: why
  std::vector<policy::NodeRef> busy;        // nodes of commits not answered yet

  /// The cluster refused the commit or found it in conflict: it reserved nothing, so the numbers
  /// of the replicas it named are free for the work's next attempt (SchedulerWork::next_replica).
  void free_replica_numbers(const std::string& cluster) {
    const std::vector<uint64_t>& numbers = replica_numbers[cluster];
    work->free_replicas.insert(numbers.begin(), numbers.end());
  }
};

}  // namespace unisched::actors
