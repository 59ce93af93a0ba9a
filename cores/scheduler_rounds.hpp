// A scheduler's commit rounds: the commits of each decision in flight, how each cluster (and the
// quota ledger) answered, and the nodes those commits touch, which other decisions leave alone
// meanwhile. Plain C++ (no CAF); SchedulerCore opens and closes them.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "cores/quota_amounts.hpp"
#include "cores/scheduler_commands.hpp"
#include "cores/scheduler_views.hpp"
#include "cores/scheduler_work.hpp"

namespace unisched::actors {

/// How one cluster answered a commit, as the scheduler saw it.
enum class CommitResult { Accepted, Conflict, Refused, TimedOut };

/// The commits of one decision, in flight.
struct CommitRound {
  using Replica = RequestDecision::Replica;
  using Diagnosis = RequestDecision::Diagnosis;

  uint64_t id = 0;
  std::unique_ptr<SchedulerWork> work;
  std::map<std::string, std::vector<Replica>> replicas;          // per cluster
  std::map<std::string, std::vector<uint64_t>> replica_numbers;  // per cluster, of `replicas`
  std::set<std::string> outstanding;                             // clusters yet to answer
  std::map<std::string, uint64_t> incarnations;  // each cluster's when its commit went out
  std::vector<std::string> accepted;
  std::set<std::string> failed;
  std::vector<Diagnosis> failures;  // why the failed clusters failed
  bool partial = false;             // the decision placed only some replicas
  std::vector<Diagnosis> partial_diagnoses;
  bool refreshing = false;                  // waiting for views before deciding again
  QuotaPlacements quota;                    // what the round takes
  std::vector<ClusterCommit> held_commits;  // sent once the ledger took the quota
  bool quota_pending = false;               // the ledger has not answered yet
  bool quota_taken = false;
  std::optional<std::string> quota_queued;  // the ledger queued the work: why
  std::vector<policy::NodeRef> busy;        // nodes of commits not answered yet

  /// Records `cluster`'s answer. One without an answer may have reserved: it is released there.
  void record(const std::string& cluster, CommitResult result, const std::string& reason,
              SchedulerCommands& out);
  /// Every cluster and the ledger answered.
  bool answered() const { return outstanding.empty() && !quota_pending; }
  /// A gang keeps nothing unless everything held; nothing is kept without its quota either.
  bool all_or_nothing() const;
  /// Clusters whose ClusterActor accepted and went away before the round closed, and replicas
  /// an earlier round of the work kept there: they count as failed and are released.
  void fail_lost_cluster_actors(const SchedulerViews& views, SchedulerCommands& out);
  /// The quota of replicas kept stays with the work; the rest is given back.
  void settle_quota(bool everything, SchedulerCommands& out);
  /// The accepting clusters' replicas become the work's (or, with `everything`, are released);
  /// returns the replicas not kept (released, or never reserved).
  std::vector<Replica> keep_accepted(bool everything, SchedulerCommands& out);
  /// The cluster refused the commit or found it in conflict: it reserved nothing, so the numbers
  /// of the replicas it named are free for the work's next attempt (SchedulerWork::next_replica).
  void free_replica_numbers(const std::string& cluster);

 private:
  void fail_lost_accepts(const SchedulerViews& views, SchedulerCommands& out);
  void fail_lost_placed(const SchedulerViews& views, SchedulerCommands& out);
};

/// The rounds in flight, and the nodes their commits touch.
class SchedulerRounds {
 public:
  /// A new round for `work`, numbered after the last.
  CommitRound& open(std::unique_ptr<SchedulerWork> work);
  /// The round of `id` if it is in flight.
  CommitRound* find(uint64_t id);
  /// The round's commit touches `node` until its cluster answers.
  void mark_busy(CommitRound& round, policy::NodeRef node);
  /// Its cluster answered (null: the round ended): decisions may use these nodes again.
  void free_nodes(CommitRound& round, const std::string* cluster);
  /// Takes the round out of those in flight (its nodes are free again); returns its work.
  std::unique_ptr<SchedulerWork> end(CommitRound& round);

  const absl::flat_hash_map<policy::NodeRef, size_t>& busy_nodes() const { return busy_nodes_; }
  bool deciding(const std::string& work_id) const;
  size_t size() const { return rounds_.size(); }
  bool empty() const { return rounds_.empty(); }
  template <class Visit>
  void visit(Visit visit) const {
    for (const auto& [id, round] : rounds_) {
      visit(*round);
    }
  }

 private:
  std::map<uint64_t, std::unique_ptr<CommitRound>> rounds_;
  // The nodes of the commits in flight, how many each; hashed: every commit adds and every answer
  // takes, and a decision only walks it into a hashed set.
  absl::flat_hash_map<policy::NodeRef, size_t> busy_nodes_;
  uint64_t started_ = 0;
};

}  // namespace unisched::actors
