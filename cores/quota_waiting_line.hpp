// The work waiting for quota budget: one line per queue, served by priority, then arrival.
// QuotaAdmission decides which line's head goes next (by weighted dominant share); this keeps
// who waits, in what order, for how much.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cores/quota_amounts.hpp"

namespace unisched::actors {

/// One piece of work waiting for budget.
struct WaitingWork {
  std::string id;
  std::string queue;
  ResourceAmounts demand;
  std::pair<int64_t, uint64_t> order;  ///< (-priority, arrival): its place in its queue's line
  uint64_t refused_at = 0;             ///< the ledger revision it was last refused at
};

/// The work waiting in one queue, and what it waits for.
struct QuotaPending {
  size_t requests = 0;
  ResourceAmounts demand;
};

class QuotaWaitingLine {
 public:
  /// Puts the work in its queue's line, behind every earlier arrival of its priority or higher
  /// (an entry of the same id leaves its old place).
  void add(const std::string& work_id, const std::string& queue, ResourceAmounts demand,
           int64_t priority);
  /// Takes the work out of its line; false when it was not waiting.
  bool remove(const std::string& work_id);
  /// Notes the ledger revision at which the work's demand was refused.
  void mark_refused(const std::string& work_id, uint64_t revision);

  bool contains(const std::string& work_id) const { return by_id_.count(work_id) > 0; }
  /// The waiting work `work_id` (which must be waiting).
  const WaitingWork& at(const std::string& work_id) const { return by_id_.at(work_id); }
  /// The first of each queue's line, by queue name.
  std::vector<const WaitingWork*> heads() const;
  /// The queues with work waiting.
  std::set<std::string> queues() const;
  QuotaPending pending(const std::string& queue) const;

 private:
  using Place = std::pair<std::pair<int64_t, uint64_t>, std::string>;  // (order, work id)

  std::map<std::string, WaitingWork> by_id_;
  std::map<std::string, std::set<Place>> by_queue_;  // queue -> its line; no empty lines
  uint64_t arrivals_ = 0;
};

}  // namespace unisched::actors
