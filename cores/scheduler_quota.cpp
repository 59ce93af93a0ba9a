#include "cores/scheduler_quota.hpp"

#include <string>

#include "model/accelerator_names.hpp"

namespace unisched::actors {

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

namespace {

/// The round's take of its queue's budget.
QuotaTake quota_take(const CommitRound& round) {
  const SchedulerWork& work = *round.work;
  return QuotaTake{work.id, work.spec.priority, QuotaCommit{work.spec.queue, round.quota, {}}};
}

}  // namespace

SchedulerCommands SchedulerQuota::on_lease_revoked(const std::string& lease_id) {
  SchedulerCommands out;
  if (leases_.revoke(lease_id)) {
    out.quota_releases.push_back(lease_id);
  }
  return out;
}

bool SchedulerQuota::start_take(CommitRound& round, SchedulerCommands& out) {
  if (round.quota.empty() || round.quota_taken || round.quota_pending ||
      take_from_lease(round, out)) {
    return false;
  }
  round.quota_pending = true;
  out.round(round.id).quota_take = quota_take(round);
  // Any other round's commits go out with the take, in one round trip (admitted work holds its
  // budget already).
  return leases_.tight(round.work->spec.queue) && !round.work->admitted;
}

bool SchedulerQuota::take_from_lease(CommitRound& round, SchedulerCommands& out) {
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
  ++lease_takes_;
  return true;
}

SchedulerQuota::Next SchedulerQuota::on_answer(CommitRound* round, QuotaResult result,
                                               const std::string& reason, SchedulerCommands& out) {
  if (round == nullptr || !round->quota_pending) {
    return Next::Ignore;  // an answer to a round that is over
  }
  round->quota_pending = false;
  const std::string& queue = round->work->spec.queue;
  switch (result) {
    case QuotaResult::Taken:
      round->quota_taken = true;
      leases_.set_tight(queue, false);
      return round->held_commits.empty() ? Next::CloseIfDone : Next::SendCommits;
    case QuotaResult::Queued:
      leases_.set_tight(queue, true);
      if (!round->held_commits.empty()) {
        return Next::Park;  // nothing was committed
      }
      round->quota_queued = reason;
      return Next::CloseIfDone;
    case QuotaResult::TimedOut:
      // It may have been taken: give it back (a no-op if it was not).
      for (const auto& [id, placement] : round->quota) {
        out.quota_releases.push_back(id);
      }
      break;
    case QuotaResult::Refused:
      break;  // nothing was taken, and the ids are another's
  }
  round->quota.clear();
  round->held_commits.clear();
  round->failed.insert("quota");
  round->failures.push_back(
      diagnosis("quota", "commit",
                (result == QuotaResult::Refused ? "refused: " : "no answer in time: ") + reason));
  return Next::CloseIfDone;
}

std::unique_ptr<SchedulerWork> SchedulerQuota::park(std::unique_ptr<SchedulerWork> work) {
  ++queued_;
  ++work->quota_waits;
  if (admitted_early_.erase(work->id) > 0) {
    work->admitted = true;
    return work;
  }
  const std::string id = work->id;
  parked_[id] = std::move(work);
  return nullptr;
}

std::unique_ptr<SchedulerWork> SchedulerQuota::admit(const std::string& work_id, bool deciding,
                                                     SchedulerCommands& out) {
  const auto found = parked_.find(work_id);
  if (found == parked_.end()) {
    if (deciding) {
      admitted_early_.insert(work_id);  // queued, and admitted before its clusters answered
    } else {
      out.quota_withdrawals.push_back(work_id);  // nothing here waits for it: give it back
    }
    return nullptr;
  }
  std::unique_ptr<SchedulerWork> work = std::move(found->second);
  parked_.erase(found);
  work->admitted = true;
  return work;
}

}  // namespace unisched::actors
