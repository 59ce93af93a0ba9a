#include "cores/quota_admission.hpp"

#include <algorithm>
#include <optional>
#include <tuple>

namespace unisched::actors {
std::string QuotaAdmission::group_of(const std::string& queue) const {
  const QuotaSpec* quota = ledger_.quota_of(queue);
  return quota != nullptr && !quota->cohort.empty() ? "cohort " + quota->cohort : "queue " + queue;
}

bool QuotaAdmission::group_waits(const std::string& group) const {
  for (const std::string& queue : line_.queues()) {
    if (group_of(queue) == group) {
      return true;
    }
  }
  return false;
}

QuotaEffects QuotaAdmission::put(QuotaSpec spec) {
  const std::string queue = spec.queue;
  revoke_leases(group_of(queue));  // its limits change: leases were cut from the old ones
  ledger_.put(std::move(spec));
  revoke_leases(group_of(queue));
  admit();
  return std::exchange(effects_, {});
}

void QuotaAdmission::enqueue(const QuotaTake& take) {
  line_.add(take.work_id, take.commit.queue, demand_of(take.commit.placements), take.priority);
  revoke_leases(group_of(take.commit.queue));  // budget held for leases should serve it
}

QuotaTakeResult QuotaAdmission::take(const QuotaTake& take, const std::string& holder) {
  QuotaTakeResult result = take_or_wait(take);
  if (result.taken && !holder.empty()) {
    result.lease = offer_lease(take, holder);
  }
  result.effects = std::exchange(effects_, {});
  return result;
}

QuotaTakeResult QuotaAdmission::take_or_wait(const QuotaTake& take) {
  if (line_.contains(take.work_id)) {
    return {false, false, "already waiting for quota", std::nullopt, {}};
  }
  for (const auto& [id, placement] : take.commit.placements) {
    if (ledger_.holds(id)) {
      return {false, true, "placement " + id + " already holds quota", std::nullopt, {}};
    }
  }
  const std::string group = group_of(take.commit.queue);
  if (!ledger_.holds(hold_id(take.work_id)) && group_waits(group)) {
    enqueue(take);
    std::vector<std::string>& admitted = effects_.admitted;
    const size_t before = admitted.size();
    admit();
    const auto self = std::find(admitted.begin() + static_cast<std::ptrdiff_t>(before),
                                admitted.end(), take.work_id);
    if (self == admitted.end()) {
      return {false, false, "waiting behind earlier work of " + group, std::nullopt, {}};
    }
    admitted.erase(self);  // first in line and it fits: it takes its budget at once
  }
  const std::string hold = hold_id(take.work_id);
  QuotaCommit commit = take.commit;
  if (ledger_.holds(hold)) {
    commit.replaces.push_back(hold);
  }
  auto refusal = ledger_.commit(commit);
  if (!refusal) {
    return {true, false, {}, std::nullopt, {}};
  }
  // Over budget: it waits, and gives back any admission hold for others meanwhile.
  ledger_.release({hold});
  enqueue(take);
  line_.mark_refused(take.work_id, ledger_.revision());
  admit();
  return {false, false, std::move(refusal->reason), std::nullopt, {}};
}

QuotaEffects QuotaAdmission::release(const std::vector<std::string>& ids) {
  leases_.forget(ids);
  if (ledger_.release(ids)) {
    admit();
  }
  return std::exchange(effects_, {});
}

QuotaEffects QuotaAdmission::withdraw(const std::string& work_id) {
  line_.remove(work_id);
  ledger_.release({hold_id(work_id)});
  admit();
  return std::exchange(effects_, {});
}

void QuotaAdmission::admit() {
  std::set<std::string> groups;
  for (const std::string& queue : line_.queues()) {
    groups.insert(group_of(queue));
  }
  for (const std::string& group : groups) {
    while (admit_one(group)) {
    }
  }
}

std::optional<std::string> QuotaAdmission::next_in(const std::string& group) const {
  // Lowest weighted dominant share (with the head's demand) first; then the earliest head.
  std::optional<std::tuple<double, std::pair<int64_t, uint64_t>, std::string>> best;
  for (const WaitingWork* head : line_.heads()) {
    const std::string& queue = head->queue;
    if (group_of(queue) != group) {
      continue;
    }
    if (ledger_.over_own_limit(queue, head->demand) ||
        (head->refused_at == ledger_.revision() && !ledger_.refusal(queue, head->demand))) {
      continue;  // it may not use more whatever is lent, or a cap refused it at this very state
    }
    auto key = std::make_tuple(ledger_.weighted_share(queue, head->demand), head->order, head->id);
    if (!best || key < *best) {
      best = std::move(key);
    }
  }
  // Work that was first in line and did not fit keeps its place until it fits, unless a queue
  // now holds less than its queue does: without that, a queue of small requests (each first by
  // share with its small demand) could keep a large one waiting for ever.
  if (const auto reserved = reserved_.find(group);
      reserved != reserved_.end() && line_.contains(reserved->second)) {
    const WaitingWork& kept = line_.at(reserved->second);
    if (!ledger_.over_own_limit(kept.queue, kept.demand) &&
        (!best || ledger_.weighted_share(line_.at(std::get<2>(*best)).queue) >=
                      ledger_.weighted_share(kept.queue))) {
      return reserved->second;
    }
  }
  if (!best) {
    return std::nullopt;
  }
  return std::get<2>(*best);
}

bool QuotaAdmission::admit_one(const std::string& group) {
  const std::optional<std::string> next = next_in(group);
  if (!next) {
    return false;
  }
  const std::string work_id = *next;
  const WaitingWork& work = line_.at(work_id);
  QuotaCommit hold;
  hold.queue = work.queue;
  hold.placements[hold_id(work_id)].amounts = work.demand;
  if (ledger_.commit(hold)) {
    reserved_[group] = work_id;  // it waits for lent budget: nothing of its cohort goes first
    return false;
  }
  line_.remove(work_id);  // `work` is gone from here on
  reserved_.erase(group);
  effects_.admitted.push_back(work_id);
  return true;
}

std::optional<QuotaLease> QuotaAdmission::offer_lease(const QuotaTake& take,
                                                      const std::string& holder) {
  const std::string& queue = take.commit.queue;
  const QuotaSpec* quota = ledger_.quota_of(queue);
  if (quota == nullptr || !quota->caps.empty() || group_waits(group_of(queue)) ||
      leases_.holds(holder, queue)) {
    return std::nullopt;
  }
  const ResourceAmounts demand = demand_of(take.commit.placements);
  for (const int64_t takes : {16, 8, 4, 2}) {
    ResourceAmounts slice;
    ResourceAmounts four_slices;  // what must fit for the slice to be at most a quarter left
    for (const auto& [resource, hard] : quota->hard) {
      const auto wanted = demand.find(resource);
      slice[resource] = takes * (wanted == demand.end() ? 0 : wanted->second);
      four_slices[resource] = 4 * slice[resource];
    }
    if (ledger_.refusal(queue, four_slices)) {
      continue;
    }
    QuotaLease lease{leases_.next_id(), slice};
    if (!ledger_.lease(lease.id, queue, slice)) {
      return std::nullopt;
    }
    leases_.grant(lease.id, holder, queue);
    return lease;
  }
  return std::nullopt;
}

std::optional<std::string> QuotaAdmission::use_lease(const std::string& lease_id,
                                                     const QuotaTake& take) {
  if (ledger_.take_from_lease(lease_id, take.commit)) {
    return std::nullopt;
  }
  if (ledger_.commit(take.commit)) {
    ledger_.restore(take.commit);  // its work runs: counted over the limits rather than lost
    return "lease " + lease_id + " did not cover work " + take.work_id +
           ", which is held over its queue's limits";
  }
  return "lease " + lease_id + " did not cover work " + take.work_id +
         ", which was taken from the budget instead";
}

QuotaEffects QuotaAdmission::holder_gone(const std::string& holder) {
  return release(leases_.of_holder(holder));
}

void QuotaAdmission::revoke_leases(const std::string& group) {
  for (QuotaRevocation& revocation :
       leases_.revoke([&](const std::string& queue) { return group_of(queue) == group; })) {
    effects_.revocations.push_back(std::move(revocation));
  }
}

}  // namespace unisched::actors
