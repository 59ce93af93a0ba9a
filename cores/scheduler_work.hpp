// What a scheduler decides: one request (or one refused replica of one) on its way to a
// decision, and the queue where such work waits, highest priority first and, within a
// priority, in the order it arrived. Plain C++ (no CAF).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cores/quota_amounts.hpp"
#include "cores/request_decision.hpp"
#include "model/scheduling_request.hpp"
#include "policy/pipeline.hpp"

namespace unisched::actors {

/// One request (or one refused replica of one) on its way to a decision.
struct SchedulerWork {
  std::string id;          ///< names its placements: "<id>/<n>"
  std::string request_id;  ///< the request it belongs to
  std::string replaces;    ///< the refused placement it places again; empty for a request
  std::string refusal;     ///< why its cluster refused `replaces`
  /// Nodes that refused replicas of its request: the view said they fit, the nodes said no
  /// (their view is behind), so this work goes elsewhere.
  std::set<policy::NodeRef> avoid;
  model::SchedulingRequestSpec spec;
  uint64_t ticket = 0;  ///< 0: nobody waits for a reply (a replica placed again)
  std::chrono::steady_clock::time_point submitted;
  uint64_t arrival = 0;  ///< its place in the queue among requests of its priority
  uint32_t attempts = 0;
  /// Numbers its placements: a request's replicas are <id>/0, <id>/1, ... A commit refused or
  /// in conflict reserved nothing, so its numbers are used again (`free_replicas`, smallest
  /// first); one without an answer may have reserved, so its numbers never are: a late release
  /// of it cannot remove a newer placement of the same name.
  uint64_t next_replica = 0;
  std::set<uint64_t> free_replicas;
  /// The number of its next placement: the smallest free one, else a new one.
  uint64_t take_replica_number();
  std::vector<RequestDecision::Replica> placed;
  /// By placement id in `placed`: its cluster's ClusterActor incarnation when it accepted.
  std::map<std::string, uint64_t> placed_incarnations;
  bool admitted = false;       ///< the ledger admitted it after it waited: it holds budget
  uint32_t quota_waits = 0;    ///< attempts that ended waiting for quota
  QuotaPlacements quota_held;  ///< of `placed`
};

/// The work waiting for a decision. One put back (it waits for the commits in flight) keeps its
/// place; at most `capacity` wait.
class SchedulerQueue {
 public:
  explicit SchedulerQueue(size_t capacity) : capacity_(capacity) {}

  bool full() const { return waiting_.size() >= capacity_; }
  /// Takes `work` in as the last of its priority.
  void admit(std::unique_ptr<SchedulerWork> work);
  /// Back where it stood among its priority.
  void put_back(std::unique_ptr<SchedulerWork> work);
  /// The work to decide next; null when none waits.
  SchedulerWork* head() const;
  std::unique_ptr<SchedulerWork> take_head();
  bool empty() const { return waiting_.empty(); }
  size_t size() const { return waiting_.size(); }
  /// Each waiting work, in the order it will be decided.
  template <class Visit>
  void visit(Visit visit) const {
    for (const auto& [key, work] : waiting_) {
      visit(*work);
    }
  }

 private:
  size_t capacity_;
  uint64_t arrivals_ = 0;
  std::map<std::pair<int64_t, uint64_t>, std::unique_ptr<SchedulerWork>>
      waiting_;  // (-priority, arrival)
};

}  // namespace unisched::actors
