// What a quota ledger's queues hold: each placement's quota and each scheduler's lease, by id,
// and their sums per queue. No limits here: QuotaLedger decides what may be held, this keeps
// what is.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cores/quota_amounts.hpp"

namespace unisched::actors {

class QuotaHoldings {
 public:
  struct Holding {
    std::string queue;
    QuotaPlacement placement;  ///< a lease's amounts are what is left of it
    bool lease = false;
  };

  /// Holds `holding` as `id` (not held yet).
  void hold(const std::string& id, Holding holding);
  /// Gives back what `id` holds; returns whether it held anything.
  bool drop(const std::string& id);
  /// Moves `demand` out of lease `id` (what the lease held of it is then no longer the queue's:
  /// the placements that take it are held next). False, changing nothing, when the lease does
  /// not cover it on a resource it holds.
  bool charge_lease(const std::string& id, const ResourceAmounts& demand);

  const Holding* find(const std::string& id) const;
  /// The ids of every holding whose id starts with `prefix`, in id order.
  std::vector<std::string> ids_under(const std::string& prefix) const;
  bool holds(const std::string& id) const { return holdings_.count(id) > 0; }
  /// What the queue holds of `resource`, leases included.
  int64_t used(const std::string& queue, const std::string& resource) const;
  /// Every resource the queue holds, leases included; and the part its leases hold.
  const ResourceAmounts& used_by(const std::string& queue) const { return sum_of(used_, queue); }
  const ResourceAmounts& leased_by(const std::string& queue) const {
    return sum_of(leased_, queue);
  }
  /// Each placement (and lease) the queue holds.
  template <class Visit>
  void visit_queue(const std::string& queue, Visit visit) const {
    const auto ids = by_queue_.find(queue);
    if (ids != by_queue_.end()) {
      for (const std::string& id : ids->second) {
        visit(id, holdings_.at(id));
      }
    }
  }

 private:
  static const ResourceAmounts& sum_of(const std::map<std::string, ResourceAmounts>& sums,
                                       const std::string& queue);

  std::map<std::string, Holding> holdings_;                // by id
  std::map<std::string, std::set<std::string>> by_queue_;  // queue -> its holdings' ids
  std::map<std::string, ResourceAmounts> used_;            // by queue, leases included
  std::map<std::string, ResourceAmounts> leased_;          // by queue: its leases' part
};

}  // namespace unisched::actors
