#include "actors/quota_state.hpp"

#include <algorithm>
#include <limits>

namespace unisched::actors {
namespace {

int64_t amount_in(const ResourceAmounts& amounts, const std::string& resource,
                  int64_t otherwise = 0) {
  const auto found = amounts.find(resource);
  return found == amounts.end() ? otherwise : found->second;
}

}  // namespace

ResourceAmounts QuotaState::total(const QuotaCommit& commit) {
  ResourceAmounts sum;
  for (const auto& [id, amounts] : commit.placements) {
    for (const auto& [resource, amount] : amounts) {
      sum[resource] += amount;
    }
  }
  return sum;
}

void QuotaState::put(QuotaSpec spec) {
  const std::string queue = spec.queue;
  quotas_[queue] = std::move(spec);
  ++revision_;
}

const QuotaSpec* QuotaState::quota_of(const std::string& queue) const {
  const auto found = quotas_.find(queue);
  return found == quotas_.end() ? nullptr : &found->second;
}

int64_t QuotaState::used(const std::string& queue, const std::string& resource) const {
  const auto found = used_.find(queue);
  return found == used_.end() ? 0 : amount_in(found->second, resource);
}

/// Whether the cohort's pool holds `wanted` of `resource` for `quota`'s queue beyond what the
/// queue keeps for itself.
std::optional<std::string> QuotaState::cohort_refusal(const QuotaSpec& quota,
                                                      const std::string& resource,
                                                      int64_t wanted) const {
  int64_t pool = 0;
  int64_t pool_used = 0;
  for (const auto& [queue, member] : quotas_) {
    if (member.cohort != quota.cohort) {
      continue;
    }
    const int64_t hard = amount_in(member.hard, resource);
    const int64_t lendable = member.lending_limit
                                 ? std::min(hard, amount_in(*member.lending_limit, resource, hard))
                                 : hard;
    const int64_t kept = hard - lendable;
    const int64_t use = used(queue, resource) + (queue == quota.queue ? wanted : 0);
    pool += lendable;
    pool_used += std::max<int64_t>(0, use - kept);
  }
  if (pool_used <= pool) {
    return std::nullopt;
  }
  return "quota " + quota.name + ": " + resource + ": cohort " + quota.cohort + " has " +
         std::to_string(std::max<int64_t>(0, pool - (pool_used - wanted))) + " to lend, " +
         std::to_string(wanted) + " wanted";
}

std::optional<std::string> QuotaState::refusal(const std::string& queue,
                                               const ResourceAmounts& demand) const {
  const QuotaSpec* quota = quota_of(queue);
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
    const int64_t after = used(queue, resource) + wanted;
    if (after <= limit->second) {
      if (!quota->cohort.empty()) {
        // Within its own budget, but part of that budget may be lent out right now.
        if (auto why = cohort_refusal(*quota, resource, wanted)) {
          return why;
        }
      }
      continue;
    }
    const int64_t may_borrow = quota->cohort.empty() ? 0
                               : quota->borrowing_limit
                                   ? amount_in(*quota->borrowing_limit, resource)
                                   : std::numeric_limits<int64_t>::max() / 4;
    if (after > limit->second + may_borrow) {
      return "quota " + quota->name + ": " + resource + ": " + std::to_string(after) +
             " would be used, " + std::to_string(limit->second) + " hard" +
             (quota->cohort.empty() ? std::string()
                                    : " + " + std::to_string(may_borrow) + " borrowable");
    }
    if (auto why = cohort_refusal(*quota, resource, wanted)) {
      return why;
    }
  }
  return std::nullopt;
}

QuotaCommitOutcome QuotaState::commit(const QuotaCommit& commit) {
  if (commit.revision != revision_) {
    return {QuotaCommitStatus::Conflict,
            "decided at quota revision " + std::to_string(commit.revision) + ", now " +
                std::to_string(revision_),
            revision_};
  }
  for (const auto& [id, amounts] : commit.placements) {
    if (holdings_.count(id) > 0) {
      return {QuotaCommitStatus::OverQuota, "placement " + id + " already holds quota", revision_};
    }
  }
  const ResourceAmounts demand = total(commit);
  if (auto why = refusal(commit.queue, demand)) {
    return {QuotaCommitStatus::OverQuota, std::move(*why), revision_};
  }
  for (const auto& [id, amounts] : commit.placements) {
    holdings_[id] = Holding{commit.queue, amounts};
  }
  for (const auto& [resource, amount] : demand) {
    used_[commit.queue][resource] += amount;
  }
  return {QuotaCommitStatus::Accepted, {}, ++revision_};
}

bool QuotaState::release(const std::vector<std::string>& placement_ids) {
  bool released = false;
  for (const std::string& id : placement_ids) {
    const auto found = holdings_.find(id);
    if (found == holdings_.end()) {
      continue;
    }
    for (const auto& [resource, amount] : found->second.amounts) {
      used_[found->second.queue][resource] -= amount;
    }
    holdings_.erase(found);
    released = true;
  }
  if (released) {
    ++revision_;
  }
  return released;
}

QuotaUsage QuotaState::usage(const std::string& queue) const {
  QuotaUsage out;
  if (const auto found = used_.find(queue); found != used_.end()) {
    out.used = found->second;
  }
  if (const QuotaSpec* quota = quota_of(queue)) {
    for (const auto& [resource, amount] : out.used) {
      const int64_t beyond = amount - amount_in(quota->hard, resource, amount);
      if (beyond > 0) {
        out.borrowed[resource] = beyond;
      }
    }
  }
  return out;
}

std::vector<std::string> QuotaState::fair_order(const std::set<std::string>& queues) const {
  std::vector<std::pair<double, std::string>> shares;
  for (const std::string& queue : queues) {
    double dominant = 0;
    int64_t weight = 1;
    if (const QuotaSpec* quota = quota_of(queue)) {
      weight = std::max<int64_t>(1, quota->weight);
      for (const auto& [resource, hard] : quota->hard) {
        if (hard > 0) {
          dominant = std::max(
              dominant, static_cast<double>(used(queue, resource)) / static_cast<double>(hard));
        }
      }
    }
    shares.emplace_back(dominant / static_cast<double>(weight), queue);
  }
  std::sort(shares.begin(), shares.end());
  std::vector<std::string> order;
  for (auto& [share, queue] : shares) {
    order.push_back(std::move(queue));
  }
  return order;
}

}  // namespace unisched::actors
