#include "cores/quota_ledger.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>

#include "model/accelerator_names.hpp"
#include "model/int128.hpp"

namespace unisched::actors {
namespace {

// Amounts come from users' manifests: each fits 64 bits, but a pool or a sum of them need not
// (two cohort members of 7Ei memory), so sums are taken in 128 bits and compared there.
using model::int128_t;

constexpr int64_t kMaxAmount = std::numeric_limits<int64_t>::max();

bool covers(const QuotaCapSpec& cap, const QuotaPlacement& placement) {
  return (cap.cluster.empty() || cap.cluster == placement.cluster) &&
         (cap.region.empty() || cap.region == placement.region) &&
         (cap.zone.empty() || cap.zone == placement.zone) &&
         (cap.model.empty() ||
          (!placement.model.empty() && model::model_matches(cap.model, placement.model)));
}

std::string describe_cap(const QuotaCapSpec& cap) {
  std::string out;
  for (const auto& [key, value] :
       {std::pair<const char*, const std::string*>{"cluster", &cap.cluster},
        {"region", &cap.region},
        {"zone", &cap.zone},
        {"model", &cap.model}}) {
    if (!value->empty()) {
      out += (out.empty() ? "" : ",") + std::string(key) + "=" + *value;
    }
  }
  return out;
}

/// How much beyond `hard` the quota may use of `resource`, the pool allowing.
int64_t may_borrow(const QuotaSpec& quota, const std::string& resource) {
  if (quota.cohort.empty()) {
    return 0;
  }
  return quota.borrowing_limit ? amount_in(*quota.borrowing_limit, resource)
                               : std::numeric_limits<int64_t>::max() / 4;
}

/// What the quota's queue holds in placements the cap covers, but those `excluding`.
ResourceAmounts cap_used(const QuotaHoldings& holdings, const QuotaSpec& quota,
                         const QuotaCapSpec& cap, const std::set<std::string>& excluding) {
  ResourceAmounts sum;
  holdings.visit_queue(quota.queue, [&](const std::string& id, const QuotaHoldings::Holding& held) {
    if (excluding.count(id) == 0 && covers(cap, held.placement)) {
      add_to(sum, held.placement.amounts);
    }
  });
  return sum;
}

/// What the quota's share is measured against: its cohort's pooled `hard`, or its own.
ResourceAmounts capacity_of(const std::map<std::string, QuotaSpec>& quotas,
                            const QuotaSpec& quota) {
  if (quota.cohort.empty()) {
    return quota.hard;
  }
  ResourceAmounts pooled;
  for (const auto& [queue, member] : quotas) {
    if (member.cohort == quota.cohort) {
      add_to(pooled, member.hard);
    }
  }
  return pooled;
}

}  // namespace

std::string amount_text(const std::string& resource, int128_t amount) {
  if (resource == "memory") {
    return model::to_decimal(amount) + " bytes";
  }
  std::string whole = model::to_decimal(static_cast<int128_t>(amount / 1000));
  const int64_t milli = std::abs(static_cast<int64_t>(amount % 1000));
  if (milli == 0) {
    return whole;
  }
  std::string fraction = std::to_string(1000 + milli).substr(1);
  fraction.erase(fraction.find_last_not_of('0') + 1);
  return (amount < 0 && whole == "0" ? "-" : "") + whole + "." + fraction;
}

void QuotaLedger::put(QuotaSpec spec) {
  const std::string queue = spec.queue;
  quotas_[queue] = std::move(spec);
  ++revision_;
}

const QuotaSpec* QuotaLedger::quota_of(const std::string& queue) const {
  const auto found = quotas_.find(queue);
  return found == quotas_.end() ? nullptr : &found->second;
}

/// Whether the cohort's pool holds `wanted` of `resource` for `quota`'s queue beyond what the
/// queue keeps for itself.
std::optional<std::string> QuotaLedger::cohort_refusal(const QuotaSpec& quota,
                                                       const std::string& resource,
                                                       int64_t wanted) const {
  int128_t pool = 0;
  int128_t pool_used = 0;
  for (const auto& [queue, member] : quotas_) {
    if (member.cohort != quota.cohort || member.hard.count(resource) == 0) {
      continue;  // a member whose quota does not name the resource neither lends nor borrows it
    }
    const int64_t hard = amount_in(member.hard, resource);
    const int64_t lendable = member.lending_limit
                                 ? std::min(hard, amount_in(*member.lending_limit, resource, hard))
                                 : hard;
    const int128_t kept = int128_t{hard} - lendable;
    const int128_t use =
        int128_t{holdings_.used(queue, resource)} + (queue == quota.queue ? wanted : 0);
    pool += lendable;
    pool_used += std::max<int128_t>(0, use - kept);
  }
  if (pool_used <= pool) {
    return std::nullopt;
  }
  return "quota " + quota.name + ": " + resource + ": cohort " + quota.cohort + " has " +
         amount_text(resource, std::max<int128_t>(0, pool - (pool_used - wanted))) + " to lend, " +
         amount_text(resource, wanted) + " wanted";
}

bool QuotaLedger::over_own_limit(const std::string& queue, const ResourceAmounts& demand) const {
  const QuotaSpec* quota = quota_of(queue);
  if (quota == nullptr) {
    return false;
  }
  for (const auto& [resource, wanted] : demand) {
    const auto limit = quota->hard.find(resource);
    if (wanted > 0 && limit != quota->hard.end() &&
        int128_t{holdings_.used(queue, resource)} + wanted >
            int128_t{limit->second} + may_borrow(*quota, resource)) {
      return true;
    }
  }
  return false;
}

std::optional<std::string> QuotaLedger::refusal(const std::string& queue,
                                                const ResourceAmounts& demand) const {
  const QuotaSpec* quota = quota_of(queue);
  if (quota == nullptr && queues_require_quota_ && !queue.empty()) {
    return "queue " + queue +
           " has no SchedulingQuota, and this hub places work only within one "
           "(--queues-require-quota)";
  }
  if (quota == nullptr) {
    return std::nullopt;
  }
  for (const auto& [resource, wanted] : demand) {
    if (wanted <= 0) {
      continue;
    }
    const auto limit = quota->hard.find(resource);
    if (limit == quota->hard.end()) {
      continue;  // a resource the quota does not name is not limited by it
    }
    const int128_t after = int128_t{holdings_.used(queue, resource)} + wanted;
    if (after <= limit->second) {
      if (!quota->cohort.empty()) {
        // Within its own budget, but part of that budget may be lent out right now.
        if (auto why = cohort_refusal(*quota, resource, wanted)) {
          return why;
        }
      }
      continue;
    }
    const int64_t borrowable = may_borrow(*quota, resource);
    // At most what a 64-bit use can hold, so that holding it never wraps what is used.
    if (after > std::min<int128_t>(int128_t{limit->second} + borrowable, kMaxAmount)) {
      return "quota " + quota->name + ": " + resource + ": " + amount_text(resource, after) +
             " would be used, " + amount_text(resource, limit->second) + " hard" +
             (quota->cohort.empty() ? std::string()
                                    : " + " + amount_text(resource, borrowable) + " borrowable");
    }
    if (auto why = cohort_refusal(*quota, resource, wanted)) {
      return why;
    }
  }
  return std::nullopt;
}

std::optional<std::string> QuotaLedger::cap_refusal(const QuotaSpec& quota,
                                                    const QuotaPlacements& placements,
                                                    const std::set<std::string>& replaced) const {
  for (const QuotaCapSpec& cap : quota.caps) {
    ResourceAmounts wanted;
    for (const auto& [id, placement] : placements) {
      if (covers(cap, placement)) {
        add_to(wanted, placement.amounts);
      }
    }
    if (wanted.empty()) {
      continue;
    }
    const ResourceAmounts held = cap_used(holdings_, quota, cap, replaced);
    for (const auto& [resource, limit] : cap.hard) {
      const int128_t after = int128_t{amount_in(held, resource)} + amount_in(wanted, resource);
      if (amount_in(wanted, resource) > 0 && after > limit) {
        return "quota " + quota.name + ": cap " + describe_cap(cap) + ": " + resource + ": " +
               amount_text(resource, after) + " would be used, " + amount_text(resource, limit) +
               " hard";
      }
    }
  }
  return std::nullopt;
}

std::optional<QuotaRefusal> QuotaLedger::commit(const QuotaCommit& commit) {
  for (const auto& [id, placement] : commit.placements) {
    if (holds(id)) {
      return QuotaRefusal{"placement " + id + " already holds quota"};
    }
  }
  const std::set<std::string> replaced(commit.replaces.begin(), commit.replaces.end());
  ResourceAmounts demand = demand_of(commit.placements);  // net of what replaced ones give back
  for (const std::string& id : replaced) {
    if (const QuotaHoldings::Holding* held = holdings_.find(id)) {
      add_to(demand, held->placement.amounts, -1);
    }
  }
  if (auto why = refusal(commit.queue, demand)) {
    return QuotaRefusal{std::move(*why)};
  }
  if (const QuotaSpec* quota = quota_of(commit.queue)) {
    if (auto why = cap_refusal(*quota, commit.placements, replaced)) {
      return QuotaRefusal{std::move(*why)};
    }
  }
  for (const std::string& id : replaced) {
    holdings_.drop(id);
  }
  for (const auto& [id, placement] : commit.placements) {
    holdings_.hold(id, {commit.queue, placement});
  }
  ++revision_;
  return std::nullopt;
}

void QuotaLedger::restore(const QuotaCommit& commit) {
  for (const auto& [id, placement] : commit.placements) {
    if (!holds(id)) {
      holdings_.hold(id, {commit.queue, placement});
    }
  }
  ++revision_;
}

bool QuotaLedger::lease(const std::string& id, const std::string& queue,
                        const ResourceAmounts& amounts) {
  if (holds(id) || refusal(queue, amounts)) {
    return false;
  }
  QuotaHoldings::Holding holding{queue, {}, true};
  holding.placement.amounts = amounts;
  holdings_.hold(id, std::move(holding));
  ++revision_;
  return true;
}

bool QuotaLedger::take_from_lease(const std::string& id, const QuotaCommit& commit) {
  const QuotaHoldings::Holding* lease = holdings_.find(id);
  if (lease == nullptr || !lease->lease || lease->queue != commit.queue) {
    return false;
  }
  for (const auto& [placement_id, placement] : commit.placements) {
    if (holds(placement_id)) {
      return false;
    }
  }
  if (!holdings_.charge_lease(id, demand_of(commit.placements))) {
    return false;
  }
  for (const auto& [placement_id, placement] : commit.placements) {
    holdings_.hold(placement_id, {commit.queue, placement});
  }
  ++revision_;
  return true;
}

bool QuotaLedger::release(const std::vector<std::string>& ids) {
  bool released = false;
  for (const std::string& id : ids) {
    released = holdings_.drop(id) || released;
  }
  if (released) {
    ++revision_;
  }
  return released;
}

QuotaUsage QuotaLedger::usage(const std::string& queue) const {
  QuotaUsage out;
  const ResourceAmounts& leased = holdings_.leased_by(queue);
  for (const auto& [resource, amount] : holdings_.used_by(queue)) {
    const int64_t in_leases = amount_in(leased, resource);
    if (amount - in_leases != 0) {
      out.used[resource] = amount - in_leases;
    }
    if (in_leases != 0) {
      out.leased[resource] = in_leases;
    }
  }
  const QuotaSpec* quota = quota_of(queue);
  if (quota == nullptr) {
    return out;
  }
  for (const auto& [resource, hard] : quota->hard) {
    const int64_t beyond = holdings_.used(queue, resource) - hard;
    if (beyond > 0) {
      out.borrowed[resource] = beyond;
    }
  }
  if (quota->cohort.empty()) {
    return out;
  }
  // What the cohort borrows is lent by its members in proportion to their idle lendable budget.
  for (const auto& [resource, hard] : quota->hard) {
    int128_t borrowed = 0;
    int128_t idle_total = 0;
    int128_t idle_mine = 0;
    for (const auto& [member_queue, member] : quotas_) {
      if (member.cohort != quota->cohort || member.hard.count(resource) == 0) {
        continue;
      }
      const int64_t member_hard = amount_in(member.hard, resource);
      const int64_t use = holdings_.used(member_queue, resource);
      borrowed += std::max<int128_t>(0, int128_t{use} - member_hard);
      const int64_t lendable = member.lending_limit
                                   ? amount_in(*member.lending_limit, resource, member_hard)
                                   : member_hard;
      const int128_t idle =
          std::max<int128_t>(0, std::min<int128_t>(lendable, int128_t{member_hard} - use));
      idle_total += idle;
      idle_mine += member_queue == queue ? idle : 0;
    }
    if (borrowed > 0 && idle_mine > 0) {
      // In double: bytes times bytes would overflow 64 bits.
      out.lent[resource] =
          static_cast<int64_t>(static_cast<double>(borrowed) * static_cast<double>(idle_mine) /
                               static_cast<double>(idle_total));
    }
  }
  return out;
}

double QuotaLedger::weighted_share(const std::string& queue, const ResourceAmounts& extra) const {
  const QuotaSpec* quota = quota_of(queue);
  if (quota == nullptr) {
    return 0;
  }
  double dominant = 0;
  for (const auto& [resource, capacity] : capacity_of(quotas_, *quota)) {
    if (capacity > 0) {
      dominant = std::max(dominant, (static_cast<double>(holdings_.used(queue, resource)) +
                                     static_cast<double>(amount_in(extra, resource))) /
                                        static_cast<double>(capacity));
    }
  }
  return dominant / static_cast<double>(std::max<int64_t>(1, quota->weight));
}

}  // namespace unisched::actors
