// SchedulerCore and the quota ledger: what a placement takes of its queue's budget, and the
// ledger's part in a commit round (the take, its answer, parking work that waits for quota and
// deciding it again once admitted). README ("Quotas across clusters") gives the protocol.
//
// A placement takes cpu in milli-cores, memory in bytes, and devices in milli-units (a share of
// a device takes its share) under their kind ("GPU": every GPU, whatever its vendor or naming,
// so no device escapes a quota) and under their resource name ("nvidia.com/gpu") where the
// cluster or the request names one; with where it is, for the quota's caps.
#include "cores/scheduler_core.hpp"

#include "model/accelerator_names.hpp"

#include <algorithm>
#include <string>

namespace unisched::actors {
namespace {

/// The round's take of its queue's budget.
QuotaTake quota_take(const CommitRound& round) {
  const SchedulerWork& work = *round.work;
  return QuotaTake{work.id, work.spec.priority, QuotaCommit{work.spec.queue, round.quota, {}}};
}

}  // namespace

QuotaPlacement quota_placement_of(const SchedulerViews::Cluster& local,
                                  const policy::ReplicaPlacement& placement,
                                  const model::SchedulingRequestSpec& spec) {
  QuotaPlacement out;
  out.cluster = local.info.id;
  out.region = local.info.region;
  out.zone = local.info.zone;
  ResourceAmounts& amounts = out.amounts;
  if (placement.cpu_milli > 0) {
    amounts["cpu"] = placement.cpu_milli;
  }
  if (placement.memory_bytes > 0) {
    amounts["memory"] = placement.memory_bytes;
  }
  const model::NodeState* node = local.view.find(placement.node);
  if (node == nullptr) {
    return out;
  }
  // A device whose cluster does not name its resource counts as the request named it.
  const std::string requested =
      spec.resources.accelerators.empty() ? "" : spec.resources.accelerators.front().resource;
  for (size_t i = 0; i < placement.devices.size(); ++i) {
    const auto index = static_cast<size_t>(placement.devices[i]);
    if (index >= node->devices.size()) {
      continue;
    }
    const model::Device& device = node->devices[index];
    const int64_t milli =
        i < placement.device_milli.size() ? placement.device_milli[i] : model::kWholeDeviceMilli;
    if (device.type != model::AcceleratorType::Other) {
      amounts[model::accelerator_type_text({device.type, ""})] += milli;
    }
    const std::string& resource = device.resource.str().empty() ? requested : device.resource.str();
    if (!resource.empty()) {
      amounts[resource] += milli;
    }
    out.model = device.model.str();
  }
  return out;
}

SchedulerCommands SchedulerCore::send_round(Round& round, std::vector<v1::CommitRequest> commits) {
  SchedulerCommands out;
  RoundMessages& messages = out.round(round.id);
  if (!round.quota.empty() && !round.quota_taken && !round.quota_pending &&
      !take_from_lease(round, out)) {
    round.quota_pending = true;
    messages.quota_take = quota_take(round);
    // A queue whose last take had to wait is near its budget: its commits wait for the take,
    // so an over-budget decision never starts work on a cluster only to stop it again. Any
    // other goes out with the take, in one round trip (admitted work holds its budget already).
    if (leases_.tight(round.work->spec.queue) && !round.work->admitted) {
      round.held_commits = std::move(commits);
      return out;
    }
  }
  for (v1::CommitRequest& commit : commits) {
    round.outstanding.insert(commit.cluster_id());
    messages.commits.push_back(std::move(commit));
  }
  return out;
}

bool SchedulerCore::take_from_lease(Round& round, SchedulerCommands& out) {
  if (round.work->admitted) {
    return false;  // admitted work holds its budget at the ledger: its take replaces that hold
  }
  const SchedulerLeases::Charge charge =
      leases_.charge(round.work->spec.queue, demand_of(round.quota));
  if (charge.spent) {
    out.quota_releases.push_back(*charge.spent);
  }
  if (!charge.charged) {
    return false;
  }
  out.quota_lease_uses.push_back(QuotaLeaseUse{*charge.charged, quota_take(round)});
  round.quota_taken = true;
  summary_.set_quota_lease_takes(summary_.quota_lease_takes() + 1);
  return true;
}

void SchedulerCore::grant_lease(const std::string& queue, QuotaLease lease) {
  leases_.grant(queue, std::move(lease));
}

SchedulerCommands SchedulerCore::on_lease_revoked(const std::string& lease_id) {
  SchedulerCommands out;
  if (leases_.revoke(lease_id)) {
    out.quota_releases.push_back(lease_id);
  }
  return out;
}

SchedulerCommands SchedulerCore::on_quota_result(uint64_t round, QuotaResult result,
                                                 const std::string& reason, Clock::time_point now) {
  Round* const open = rounds_.find(round);
  if (open == nullptr || !open->quota_pending) {
    return {};  // an answer to a round that is over
  }
  open->quota_pending = false;
  const std::string queue = open->work->spec.queue;
  SchedulerCommands out;
  switch (result) {
    case QuotaResult::Taken:
      open->quota_taken = true;
      leases_.set_tight(queue, false);
      if (!open->held_commits.empty()) {
        return send_round(*open, std::move(open->held_commits));
      }
      return maybe_close(*open, now);
    case QuotaResult::Queued:
      leases_.set_tight(queue, true);
      if (!open->held_commits.empty()) {
        return park(*open, reason, now);  // nothing was committed
      }
      open->quota_queued = reason;
      return maybe_close(*open, now);
    case QuotaResult::TimedOut:
      // It may have been taken: give it back (a no-op if it was not).
      for (const auto& [id, placement] : open->quota) {
        out.quota_releases.push_back(id);
      }
      break;
    case QuotaResult::Refused:
      break;  // nothing was taken, and the ids are another's
  }
  open->quota.clear();
  open->held_commits.clear();
  open->failed.insert("quota");
  open->failures.push_back(
      diagnosis("quota", "commit",
                (result == QuotaResult::Refused ? "refused: " : "no answer in time: ") + reason));
  out.append(maybe_close(*open, now));
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
    tracking_.forget_early_refusals(
        replicas);  // none is kept: each is released or was never reserved
  }
  std::unique_ptr<Work> work = rounds_.end(round);
  summary_.set_quota_queued(summary_.quota_queued() + 1);
  ++work->quota_waits;
  SchedulerCommands out;
  if (work->replaces.empty()) {
    v1::SchedulingDecision queued;
    queued.set_request_id(work->request_id);
    queued.set_status(v1::SchedulingDecision::QUEUED);
    queued.add_reasons("waiting for quota: " + reason);
    queued.set_attempts(work->attempts);
    queued.set_latency_us(
        std::chrono::duration_cast<std::chrono::microseconds>(now - work->submitted).count());
    out.updates.push_back(std::move(queued));
  }
  if (admitted_early_.erase(work->id) > 0) {
    work->admitted = true;
    out.append(enqueue(std::move(work), now));
    return out;
  }
  parked_[work->id] = std::move(work);
  out.advance_later = !queue_.empty();
  return out;
}

SchedulerCommands SchedulerCore::on_admitted(const std::string& work_id, Clock::time_point now) {
  const auto found = parked_.find(work_id);
  if (found == parked_.end()) {
    SchedulerCommands out;
    if (rounds_.deciding(work_id)) {
      admitted_early_.insert(work_id);  // queued, and admitted before its clusters answered
    } else {
      out.quota_withdrawals.push_back(work_id);  // nothing here waits for it: give it back
    }
    return out;
  }
  std::unique_ptr<Work> work = std::move(found->second);
  parked_.erase(found);
  work->admitted = true;
  return enqueue(std::move(work), now);
}

}  // namespace unisched::actors
