#include "cores/scheduler_core.hpp"

#include <algorithm>
#include <random>

#include "messages/undecided_reasons.hpp"
#include "policy/pipeline.hpp"
#include "policy/splitmix.hpp"

namespace unisched::actors {
namespace {

using Decision = RequestDecision;

std::vector<Decision::Diagnosis> diagnoses_of(const policy::Decision& decision) {
  std::vector<Decision::Diagnosis> out;
  for (const auto& found : decision.diagnoses) {
    out.push_back(diagnosis(found.cluster, found.plugin, found.reason));
  }
  return out;
}

}  // namespace

SchedulerCore::SchedulerCore(policy::Policy policy, SchedulerSettings settings)
    : policy_(std::move(policy)),
      settings_(settings),
      queue_(settings.max_queue),
      outcomes_(policy_, rounds_, settings.max_tracked, settings.quotas,
                [this](std::unique_ptr<Work> work, Clock::time_point now) {
                  return enqueue(std::move(work), now);
                }) {
  if (settings_.draw_seed == 0) {
    settings_.draw_seed = std::random_device{}();
  }
}

SchedulerCore::~SchedulerCore() = default;

SchedulerCommands SchedulerCore::submit(std::string id, model::SchedulingRequestSpec spec,
                                        uint64_t ticket, Clock::time_point now) {
  ++counts_.requests;
  auto work = std::make_unique<Work>();
  work->request_id = id;
  work->id = std::move(id);
  work->spec = std::move(spec);
  work->ticket = ticket;
  work->submitted = now;
  return enqueue(std::move(work), now);
}

SchedulerCommands SchedulerCore::enqueue(std::unique_ptr<Work> work, Clock::time_point now) {
  if (queue_.full()) {
    ++counts_.refused_queue_full;
    const std::string note = "refused: the scheduler's queue is full (" +
                             std::to_string(queue_.size()) + " requests waiting)";
    return outcomes_.finish(std::move(work), Decision::Status::Unschedulable, {}, {note}, now);
  }
  queue_.admit(std::move(work));
  return advance(now);
}

SchedulerCommands SchedulerCore::advance(Clock::time_point now) {
  // A loop, not recursion: a long queue of requests nothing can take is decided in one go.
  SchedulerCommands out;
  while (rounds_.size() < settings_.in_flight_limit() && !queue_.empty()) {
    const std::optional<policy::Decision> decision = decide(*queue_.head());
    if (!decision) {
      break;  // the head waits for the commits in flight; so does everything behind it
    }
    out.append(act_on(queue_.take_head(), *decision, now));
  }
  return out;
}

std::optional<policy::Decision> SchedulerCore::decide(Work& work) {
  // The replicas still wanted, set on the work's own spec for the decision (a copy of the spec
  // per decision was 2% of a busy scheduler).
  const int64_t wanted = work.spec.replicas;
  work.spec.replicas = wanted - static_cast<int64_t>(work.placed.size());
  // A node a commit in flight touches has changed by the time this commit would arrive, so this
  // decision leaves it alone; should that leave replicas without a place, it waits instead.
  const auto& busy_nodes = rounds_.busy_nodes();
  const bool around_busy = !busy_nodes.empty();
  policy::NodeKeys avoid;
  avoid.reserve(work.avoid.size() + busy_nodes.size());
  for (const auto& [cluster, node] : work.avoid) {
    avoid.emplace(cluster, node);
  }
  for (const auto& [node, commits] : busy_nodes) {
    avoid.emplace(node.first, node.second);
  }
  // Seeded from the request alone: it draws the same whatever the scheduler decided before it,
  // and a retry after a conflict (a local copy that was behind) decides on the refreshed view
  // exactly as a first attempt on that view would, so a run repeats whatever the timing.
  const uint64_t seed = policy::decision_seed(settings_.draw_seed, work.id);
  policy::Decision decision = policy::decide(work.spec, views_.candidates(), policy_, seed, avoid);
  work.spec.replicas = wanted;
  if (around_busy && decision.status != policy::DecisionStatus::Placed) {
    return std::nullopt;
  }
  ++work.attempts;
  return decision;
}

SchedulerCommands SchedulerCore::act_on(std::unique_ptr<Work> work,
                                        const policy::Decision& decision, Clock::time_point now) {
  if (decision.placements.empty()) {
    std::vector<std::string> notes;
    if (!views_.any_in_step()) {  // found by `unisched simulate`: such decisions gave no reason
      notes.push_back(views_.size() == 0 ? "no cluster has joined this scheduler"
                                         : "no cluster's view has reached this scheduler yet (" +
                                               std::to_string(views_.size()) + " joined)");
    }
    const auto status =
        work->placed.empty() ? Decision::Status::Unschedulable : Decision::Status::PartiallyPlaced;
    return outcomes_.finish(std::move(work), status, diagnoses_of(decision), notes, now);
  }
  return start_round(std::move(work), decision);
}

SchedulerCommands SchedulerCore::start_round(std::unique_ptr<Work> started,
                                             const policy::Decision& decision) {
  Round& round = rounds_.open(std::move(started));
  Work& work = *round.work;
  round.partial = decision.status == policy::DecisionStatus::PartiallyPlaced;
  round.partial_diagnoses = diagnoses_of(decision);
  std::map<std::string, ClusterCommit> commits;
  for (const auto& placement : decision.placements) {
    const SchedulerViews::Cluster& local = views_.at(placement.cluster);
    ClusterCommit& commit = commits[placement.cluster];
    commit.cluster_id = placement.cluster;
    commit.mode = settings_.commit_mode;
    commit.commit.request_id = work.request_id;
    commit.commit.revision = local.revision;
    commit.commit.node_revisions[placement.node] = local.view.revision_of(placement.node);
    const uint64_t number = work.take_replica_number();
    round.replica_numbers[placement.cluster].push_back(number);
    const std::string placement_id = work.id + "/" + std::to_string(number);
    commit.commit.reservations.push_back(model::Reservation{
        placement_id, placement.node, placement.cpu_milli, placement.memory_bytes,
        placement.devices, placement.host_ports, placement.device_milli, work.spec.pod_template});
    round.replicas[placement.cluster].push_back(replica_of(placement_id, placement));
    round.incarnations[placement.cluster] = local.incarnation;
    rounds_.mark_busy(round, {placement.cluster, placement.node});
    if (settings_.quotas && !work.spec.queue.empty()) {
      round.quota[placement_id] = quota_placement_of(local, placement, work.spec);
    }
  }
  std::vector<ClusterCommit> to_send;
  for (auto& [cluster, commit] : commits) {
    to_send.push_back(std::move(commit));
  }
  return send_round(round, std::move(to_send));
}

SchedulerCommands SchedulerCore::send_round(Round& round, std::vector<ClusterCommit> commits) {
  SchedulerCommands out;
  if (quota_.start_take(round, out)) {
    round.held_commits = std::move(commits);
    return out;
  }
  RoundMessages& messages = out.round(round.id);
  for (ClusterCommit& commit : commits) {
    round.outstanding.insert(commit.cluster_id);
    messages.commits.push_back(std::move(commit));
  }
  return out;
}

SchedulerCommands SchedulerCore::on_quota_result(uint64_t round, QuotaResult result,
                                                 const std::string& reason, Clock::time_point now) {
  Round* const open = rounds_.find(round);
  SchedulerCommands out;
  switch (quota_.on_answer(open, result, reason, out)) {
    case SchedulerQuota::Next::Ignore:
      break;
    case SchedulerQuota::Next::SendCommits:
      out.append(send_round(*open, std::move(open->held_commits)));
      break;
    case SchedulerQuota::Next::Park:
      out.append(park(*open, reason, now));
      break;
    case SchedulerQuota::Next::CloseIfDone:
      out.append(maybe_close(*open, now));
      break;
  }
  return out;
}

SchedulerCommands SchedulerCore::maybe_close(Round& round, Clock::time_point now) {
  if (!round.answered()) {
    return {};
  }
  SchedulerCommands out;
  if (round.quota_queued) {
    // Over budget after all: the clusters that reserved give it back, and the work waits.
    for (const std::string& cluster : round.accepted) {
      out.releases.push_back(release_of(cluster, round.replicas.at(cluster)));
    }
    const std::string reason = *round.quota_queued;
    out.append(park(round, reason, now));
    return out;
  }
  out.append(close_round(round, now));
  out.advance_later = rounds_.size() < settings_.in_flight_limit() && !queue_.empty();
  return out;
}

SchedulerCommands SchedulerCore::park(Round& round, const std::string& reason,
                                      Clock::time_point now) {
  for (const auto& [cluster, replicas] : round.replicas) {
    // None is kept: each is released or was never reserved.
    outcomes_.not_kept(replicas);
  }
  std::unique_ptr<Work> work = rounds_.end(round);
  SchedulerCommands out;
  if (work->replaces.empty()) {
    Decision queued;
    queued.request_id = work->request_id;
    queued.status = Decision::Status::Queued;
    queued.reasons.push_back("waiting for quota: " + reason);
    queued.attempts = work->attempts;
    queued.latency_us =
        std::chrono::duration_cast<std::chrono::microseconds>(now - work->submitted).count();
    out.updates.push_back(std::move(queued));
  }
  if (auto admitted = quota_.park(std::move(work))) {
    out.append(enqueue(std::move(admitted), now));
    return out;
  }
  out.advance_later = !queue_.empty();
  return out;
}

SchedulerCommands SchedulerCore::on_admitted(const std::string& work_id, Clock::time_point now) {
  SchedulerCommands out;
  if (auto work = quota_.admit(work_id, rounds_.deciding(work_id), out)) {
    out.append(enqueue(std::move(work), now));
  }
  return out;
}

SchedulerCommands SchedulerCore::on_commit_result(uint64_t round, const std::string& cluster,
                                                  CommitResult result, const std::string& reason,
                                                  Clock::time_point now) {
  Round* const open = rounds_.find(round);
  if (open == nullptr || open->outstanding.erase(cluster) == 0) {
    return {};  // an answer to a round that is over
  }
  rounds_.free_nodes(*open, &cluster);
  if (result == CommitResult::Accepted &&
      views_.at(cluster).incarnation != open->incarnations[cluster]) {
    // Accepted by a ClusterActor that has since gone: its reservation went with it and its
    // order may never reach the cluster. Handled as no answer: released there, decided again
    // (found by `unisched simulate --faults cluster-actor-crash,drop`).
    result = CommitResult::TimedOut;
  }
  if (result == CommitResult::Accepted) {
    ++counts_.commits;
  } else if (result == CommitResult::Conflict) {
    ++counts_.conflicts;
  } else if (result == CommitResult::TimedOut) {
    ++counts_.commits_timed_out;
  }
  SchedulerCommands out;
  open->record(cluster, result, reason, out);
  out.append(maybe_close(*open, now));
  return out;
}

SchedulerCommands SchedulerCore::close_round(Round& round, Clock::time_point now) {
  Work& work = *round.work;
  SchedulerCommands out;
  round.fail_lost_cluster_actors(views_, out);
  const bool all_or_nothing = round.all_or_nothing();
  if (round.quota_taken) {
    round.settle_quota(all_or_nothing, out);
  }
  outcomes_.not_kept(round.keep_accepted(all_or_nothing, out));
  if (round.failed.empty()) {
    const auto status =
        round.partial ? Decision::Status::PartiallyPlaced : Decision::Status::Placed;
    const auto diagnoses = std::move(round.partial_diagnoses);
    out.append(outcomes_.finish(rounds_.end(round), status, diagnoses, {}, now));
    return out;
  }
  // Attempts that ended waiting for quota are not retries: the wait was no failure.
  if (work.attempts - work.quota_waits <= static_cast<uint32_t>(settings_.max_retries)) {
    ++counts_.retries;
    round.refreshing = true;
    out.round(round.id).refresh.assign(round.failed.begin(), round.failed.end());
    return out;
  }
  const auto diagnoses = std::move(round.failures);
  std::unique_ptr<Work> done = rounds_.end(round);
  const auto status =
      done->placed.empty() ? Decision::Status::Unschedulable : Decision::Status::PartiallyPlaced;
  std::string note = "gave up after " + std::to_string(done->attempts) + " attempts";
  out.append(outcomes_.finish(std::move(done), status, diagnoses, {std::move(note)}, now));
  return out;
}

SchedulerCommands SchedulerCore::on_refreshed(uint64_t round, Clock::time_point now) {
  Round* const open = rounds_.find(round);
  if (open == nullptr || !open->refreshing) {
    return {};
  }
  std::unique_ptr<Work> work = rounds_.end(*open);
  SchedulerCommands out;
  if (const auto decision = decide(*work)) {
    out = act_on(std::move(work), *decision, now);
  } else {
    queue_.put_back(std::move(work));  // decided again when a commit in flight is answered
  }
  out.advance_later = rounds_.size() < settings_.in_flight_limit() && !queue_.empty();
  return out;
}

SchedulerCounts SchedulerCore::counts(Clock::time_point now) const {
  SchedulerCounts counts = counts_;
  outcomes_.add_counts(counts);
  counts.waiting = queue_.size();
  counts.waiting_for_quota = quota_.parked();
  counts.quota_queued = quota_.queued();
  counts.quota_lease_takes = quota_.lease_takes();
  auto& undecided = counts.undecided_by_reason;
  std::optional<Clock::time_point> oldest;
  const auto count = [&](const Work& work, const char* reason) {
    if (work.ticket != 0) {  // a request someone waits for, not a replica placed again
      ++undecided[reason];
      oldest = std::min(oldest.value_or(work.submitted), work.submitted);
    }
  };
  queue_.visit([&](const Work& work) {
    count(work, work.attempts == 0 ? kUndecidedQueued : kUndecidedRetrying);
  });
  rounds_.visit([&](const Round& round) {
    count(*round.work, round.refreshing ? kUndecidedRetrying : kUndecidedCommitting);
  });
  quota_.visit_parked([&](const Work& work) { count(work, kUndecidedWaitingForQuota); });
  if (oldest) {
    counts.oldest_undecided_seconds = std::chrono::duration<double>(now - *oldest).count();
  }
  return counts;
}

}  // namespace unisched::actors
