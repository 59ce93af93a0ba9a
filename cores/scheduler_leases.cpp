#include "cores/scheduler_leases.hpp"

namespace unisched::actors {

void SchedulerLeases::grant(const std::string& queue, QuotaLease lease) {
  leases_[queue] = std::move(lease);
}

bool SchedulerLeases::revoke(const std::string& id) {
  for (auto lease = leases_.begin(); lease != leases_.end(); ++lease) {
    if (lease->second.id == id) {
      leases_.erase(lease);
      return true;
    }
  }
  return false;
}

SchedulerLeases::Charge SchedulerLeases::charge(const std::string& queue,
                                                const ResourceAmounts& demand) {
  const auto lease = leases_.find(queue);
  if (lease == leases_.end()) {
    return {};
  }
  if (actors::charge(lease->second.amounts, demand)) {
    return {lease->second.id, std::nullopt};
  }
  Charge spent{std::nullopt, std::move(lease->second.id)};  // the ledger may grant another
  leases_.erase(lease);
  return spent;
}

const QuotaLease* SchedulerLeases::lease_of(const std::string& queue) const {
  const auto lease = leases_.find(queue);
  return lease == leases_.end() ? nullptr : &lease->second;
}

void SchedulerLeases::set_tight(const std::string& queue, bool tight) {
  if (tight) {
    tight_queues_.insert(queue);
  } else {
    tight_queues_.erase(queue);
  }
}

}  // namespace unisched::actors
