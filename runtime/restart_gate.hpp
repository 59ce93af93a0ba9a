// What a restarted hub holds back until the clusters are back: the requests undecided at the
// restart (and those accepted since) are decided on views that hold what the clusters run, not
// on the empty views of clusters that have not registered again. Plain C++; HubRequests owns one.
#pragma once

#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "runtime/request_book.hpp"

namespace unisched::runtime {

class RestartGate {
 public:
  using Clock = std::chrono::steady_clock;
  using Work = std::vector<RequestBook::ToSchedule>;

  /// Holds `work` until every cluster of `awaited` is in step with its agent (any one when it
  /// names none), or `deadline`. With no work, nothing is held.
  void close(Work work, std::set<std::string> awaited, Clock::time_point deadline);
  /// Whether it holds work.
  bool closed() const { return !held_.empty(); }
  /// The clusters the work waits for; empty once it was let go (or when any one will do).
  const std::set<std::string>& awaited() const { return awaited_; }
  /// Holds `work` behind what it holds (only while closed).
  void hold(Work work);
  /// `cluster` is in step with its agent: all the work once every awaited one is; else none.
  Work cluster_synced(const std::string& cluster);
  /// All the work once `now` is past the deadline; else none.
  Work tick(Clock::time_point now);

 private:
  Work open();

  Work held_;
  std::set<std::string> awaited_;
  Clock::time_point deadline_{};
};

}  // namespace unisched::runtime
