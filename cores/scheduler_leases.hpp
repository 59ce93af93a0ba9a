// A scheduler's quota leases: budget the ledger set aside for this scheduler alone, one lease
// per queue, charged here without a round trip (the ledger hears of each take after the fact),
// and the queues whose last take had to wait. Plain C++ (no CAF, no protobuf).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>

#include "cores/quota_amounts.hpp"

namespace unisched::actors {

class SchedulerLeases {
 public:
  /// What came of charging a take to its queue's lease.
  struct Charge {
    /// The lease charged: the take is made (tell the ledger with a QuotaLeaseUse).
    std::optional<std::string> charged;
    /// A lease that did not cover the take: dropped here, for the ledger to have back.
    std::optional<std::string> spent;
  };

  /// The ledger granted `lease` of the queue's budget (replacing any lease of the queue).
  void grant(const std::string& queue, QuotaLease lease);
  /// The ledger wants lease `id` back: true if it was held (give it back), false if not.
  bool revoke(const std::string& id);
  /// Charges `demand` to the queue's lease if it covers it; a lease that does not is spent.
  Charge charge(const std::string& queue, const ResourceAmounts& demand);
  /// What is left of the queue's lease; null when it holds none.
  const QuotaLease* lease_of(const std::string& queue) const;

  /// The queue's last take had to wait (or did not): it is near its budget.
  void set_tight(const std::string& queue, bool tight);
  bool tight(const std::string& queue) const { return tight_queues_.count(queue) > 0; }

 private:
  std::map<std::string, QuotaLease> leases_;  // by queue
  std::set<std::string> tight_queues_;
};

}  // namespace unisched::actors
