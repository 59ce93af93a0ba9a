#include "cores/lease_holders.hpp"

namespace unisched::actors {

void LeaseHolders::grant(const std::string& id, const std::string& holder,
                         const std::string& queue) {
  leases_[id] = Lease{holder, queue};
  by_holder_[{holder, queue}] = id;
}

std::vector<QuotaRevocation> LeaseHolders::revoke(
    const std::function<bool(const std::string&)>& in_group) {
  std::vector<QuotaRevocation> revocations;
  for (auto& [id, lease] : leases_) {
    if (!lease.revoked && in_group(lease.queue)) {
      lease.revoked = true;
      revocations.push_back({lease.holder, id});
    }
  }
  return revocations;
}

std::vector<std::string> LeaseHolders::of_holder(const std::string& holder) const {
  std::vector<std::string> ids;
  for (const auto& [id, lease] : leases_) {
    if (lease.holder == holder) {
      ids.push_back(id);
    }
  }
  return ids;
}

void LeaseHolders::forget(const std::vector<std::string>& ids) {
  for (const std::string& id : ids) {
    if (const auto found = leases_.find(id); found != leases_.end()) {
      by_holder_.erase({found->second.holder, found->second.queue});
      leases_.erase(found);
    }
  }
}

}  // namespace unisched::actors
