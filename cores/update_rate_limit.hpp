// A cluster's limit on the rate of the updates its agent pushes: token buckets for updates and
// for node changes per second, each holding one second's worth. Over the limit, every update is
// refused until the buckets hold enough again, so the agent sends them again in order instead
// of leaving a gap. Plain C++ over a caller's clock (the ClusterActor's, virtual in tests).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

namespace unisched::actors {

struct UpdateRateLimits {
  double updates_per_second = 0;       ///< 0: no limit
  double node_changes_per_second = 0;  ///< 0: no limit
};

class UpdateRateLimit {
 public:
  using Clock = std::chrono::steady_clock;

  explicit UpdateRateLimit(UpdateRateLimits limits = {});

  /// Nullopt when an update of `node_changes` may be applied at `now` (and counts against the
  /// limit); otherwise how long every update is refused from now on. An update larger than one
  /// second's worth passes when the bucket is full, leaving it in debt.
  std::optional<std::chrono::milliseconds> admit(uint64_t node_changes, Clock::time_point now);

  uint64_t refused() const { return refused_; }

 private:
  struct Bucket {
    double rate = 0;  // tokens per second; 0: unlimited
    double tokens = 0;
    bool enough(double wanted) const { return rate == 0 || tokens >= wanted || tokens >= rate; }
    double seconds_until(double wanted) const;
  };
  void refill(Clock::time_point now);

  Bucket updates_;
  Bucket changes_;
  Clock::time_point refilled_{};
  Clock::time_point refused_until_{};
  uint64_t refused_ = 0;
};

}  // namespace unisched::actors
