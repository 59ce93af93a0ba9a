#include "cores/scheduler_rounds.hpp"

#include <algorithm>
#include <iterator>

namespace unisched::actors {

void CommitRound::record(const std::string& cluster, CommitResult result, const std::string& reason,
                         SchedulerCommands& out) {
  switch (result) {
    case CommitResult::Accepted:
      accepted.push_back(cluster);
      return;
    case CommitResult::Conflict:
      free_replica_numbers(cluster);
      failures.push_back(diagnosis(cluster, "commit", "conflict: " + reason));
      break;
    case CommitResult::Refused:
      free_replica_numbers(cluster);
      failures.push_back(diagnosis(cluster, "commit", reason));
      break;
    case CommitResult::TimedOut:
      // The cluster may have reserved it: release it there (a no-op if it never did).
      failures.push_back(diagnosis(cluster, "commit", "no answer in time: " + reason));
      out.releases.push_back(release_of(cluster, replicas.at(cluster)));
      break;
  }
  failed.insert(cluster);
}

bool CommitRound::all_or_nothing() const {
  return (work->spec.distribution.gang && !failed.empty()) || failed.count("quota") > 0;
}

void CommitRound::fail_lost_cluster_actors(const SchedulerViews& views, SchedulerCommands& out) {
  fail_lost_accepts(views, out);
  fail_lost_placed(views, out);
}

/// A ClusterActor that accepted its commit and went away before the round closed took the
/// reservation with it, and its order may never reach the cluster: that cluster counts as failed
/// and is released (found by `unisched simulate --faults cluster-actor-crash`, seed 983).
void CommitRound::fail_lost_accepts(const SchedulerViews& views, SchedulerCommands& out) {
  for (auto it = accepted.begin(); it != accepted.end();) {
    if (views.at(*it).incarnation == incarnations[*it]) {
      ++it;
      continue;
    }
    failed.insert(*it);
    failures.push_back(
        diagnosis(*it, "commit", "its ClusterActor restarted before the round was decided"));
    out.releases.push_back(release_of(*it, replicas.at(*it)));
    it = accepted.erase(it);
  }
}

/// The same for replicas an earlier round of this work kept (a request placed over several
/// rounds): their ClusterActor went away meanwhile, so they are released and decided again
/// (found by `unisched simulate`, seed 9587 with agent and ClusterActor crashes: such replicas
/// stayed in the decision and never ran).
void CommitRound::fail_lost_placed(const SchedulerViews& views, SchedulerCommands& out) {
  std::map<std::string, std::vector<Replica>> lost;
  auto kept = std::remove_if(work->placed.begin(), work->placed.end(), [&](const auto& replica) {
    const auto accepted_by = work->placed_incarnations.find(replica.placement_id);
    if (accepted_by == work->placed_incarnations.end() ||
        views.at(replica.cluster).incarnation == accepted_by->second) {
      return false;
    }
    work->placed_incarnations.erase(accepted_by);
    lost[replica.cluster].push_back(replica);
    return true;
  });
  work->placed.erase(kept, work->placed.end());
  for (const auto& [cluster, lost_replicas] : lost) {
    failed.insert(cluster);
    failures.push_back(
        diagnosis(cluster, "commit", "its ClusterActor restarted before the request was decided"));
    out.releases.push_back(release_of(cluster, lost_replicas));
    for (const auto& replica : lost_replicas) {
      if (work->quota_held.erase(replica.placement_id) > 0) {
        out.quota_releases.push_back(replica.placement_id);
      }
    }
  }
}

void CommitRound::settle_quota(bool everything, SchedulerCommands& out) {
  for (const auto& [cluster, cluster_replicas] : replicas) {
    const bool kept = !everything && failed.count(cluster) == 0;
    for (const auto& replica : cluster_replicas) {
      const auto taken = quota.find(replica.placement_id);
      if (taken == quota.end()) {
        continue;
      }
      if (kept) {
        work->quota_held.insert(*taken);
      } else {
        out.quota_releases.push_back(replica.placement_id);
      }
    }
  }
}

std::vector<CommitRound::Replica> CommitRound::keep_accepted(bool everything,
                                                             SchedulerCommands& out) {
  for (const std::string& cluster : accepted) {
    auto& cluster_replicas = replicas.at(cluster);
    if (everything) {
      out.releases.push_back(release_of(cluster, cluster_replicas));
      continue;
    }
    for (const auto& replica : cluster_replicas) {
      work->placed_incarnations[replica.placement_id] = incarnations[cluster];
    }
    // Moved: nothing reads an accepting cluster's replicas from the round after this.
    work->placed.insert(work->placed.end(), std::make_move_iterator(cluster_replicas.begin()),
                        std::make_move_iterator(cluster_replicas.end()));
  }
  std::vector<Replica> not_kept;
  for (const auto& [cluster, cluster_replicas] : replicas) {
    if (everything || std::find(accepted.begin(), accepted.end(), cluster) == accepted.end()) {
      not_kept.insert(not_kept.end(), cluster_replicas.begin(), cluster_replicas.end());
    }
  }
  return not_kept;
}

void CommitRound::free_replica_numbers(const std::string& cluster) {
  const std::vector<uint64_t>& numbers = replica_numbers[cluster];
  work->free_replicas.insert(numbers.begin(), numbers.end());
}

CommitRound& SchedulerRounds::open(std::unique_ptr<SchedulerWork> work) {
  auto opened = std::make_unique<CommitRound>();
  opened->id = ++started_;
  opened->work = std::move(work);
  CommitRound& round = *opened;
  rounds_.emplace(round.id, std::move(opened));
  return round;
}

CommitRound* SchedulerRounds::find(uint64_t id) {
  const auto found = rounds_.find(id);
  return found == rounds_.end() ? nullptr : found->second.get();
}

void SchedulerRounds::mark_busy(CommitRound& round, policy::NodeRef node) {
  ++busy_nodes_[node];
  round.busy.push_back(std::move(node));
}

void SchedulerRounds::free_nodes(CommitRound& round, const std::string* cluster) {
  const auto freed = std::stable_partition(
      round.busy.begin(), round.busy.end(),
      [&](const policy::NodeRef& node) { return cluster != nullptr && node.first != *cluster; });
  for (auto node = freed; node != round.busy.end(); ++node) {
    const auto count = busy_nodes_.find(*node);
    if (count != busy_nodes_.end() && --count->second == 0) {
      busy_nodes_.erase(count);
    }
  }
  round.busy.erase(freed, round.busy.end());
}

std::unique_ptr<SchedulerWork> SchedulerRounds::end(CommitRound& round) {
  free_nodes(round, nullptr);
  std::unique_ptr<SchedulerWork> work = std::move(round.work);
  rounds_.erase(round.id);  // `round` is gone from here on
  return work;
}

bool SchedulerRounds::deciding(const std::string& work_id) const {
  return std::any_of(rounds_.begin(), rounds_.end(),
                     [&](const auto& open) { return open.second->work->id == work_id; });
}

}  // namespace unisched::actors
