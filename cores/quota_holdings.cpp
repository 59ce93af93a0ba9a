#include "cores/quota_holdings.hpp"

#include <utility>

namespace unisched::actors {

void QuotaHoldings::hold(const std::string& id, Holding holding) {
  add_to(used_[holding.queue], holding.placement.amounts);
  if (holding.lease) {
    add_to(leased_[holding.queue], holding.placement.amounts);
  }
  by_queue_[holding.queue].insert(id);
  holdings_[id] = std::move(holding);
}

bool QuotaHoldings::drop(const std::string& id) {
  const auto found = holdings_.find(id);
  if (found == holdings_.end()) {
    return false;
  }
  const Holding& holding = found->second;
  add_to(used_[holding.queue], holding.placement.amounts, -1);
  if (holding.lease) {
    add_to(leased_[holding.queue], holding.placement.amounts, -1);
  }
  by_queue_[holding.queue].erase(id);
  holdings_.erase(found);
  return true;
}

bool QuotaHoldings::charge_lease(const std::string& id, const ResourceAmounts& demand) {
  const auto found = holdings_.find(id);
  if (found == holdings_.end() || !found->second.lease) {
    return false;
  }
  ResourceAmounts& left = found->second.placement.amounts;
  if (!charge(left, demand)) {
    return false;
  }
  const std::string& queue = found->second.queue;
  for (const auto& [resource, held] : left) {
    const int64_t moved = amount_in(demand, resource);
    used_[queue][resource] -= moved;
    leased_[queue][resource] -= moved;
  }
  return true;
}

const QuotaHoldings::Holding* QuotaHoldings::find(const std::string& id) const {
  const auto found = holdings_.find(id);
  return found == holdings_.end() ? nullptr : &found->second;
}

int64_t QuotaHoldings::used(const std::string& queue, const std::string& resource) const {
  const auto found = used_.find(queue);
  return found == used_.end() ? 0 : amount_in(found->second, resource);
}

const ResourceAmounts& QuotaHoldings::sum_of(const std::map<std::string, ResourceAmounts>& sums,
                                             const std::string& queue) {
  static const ResourceAmounts kNone;
  const auto found = sums.find(queue);
  return found == sums.end() ? kNone : found->second;
}

std::vector<std::string> QuotaHoldings::ids_under(const std::string& prefix) const {
  std::vector<std::string> out;
  for (auto it = holdings_.lower_bound(prefix);
       it != holdings_.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
    out.push_back(it->first);
  }
  return out;
}

}  // namespace unisched::actors
