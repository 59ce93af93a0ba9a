#include "cores/update_rate_limit.hpp"

#include <algorithm>
#include <cmath>

namespace unisched::actors {

UpdateRateLimit::UpdateRateLimit(UpdateRateLimits limits) {
  updates_.rate = limits.updates_per_second;
  changes_.rate = limits.node_changes_per_second;
  updates_.tokens = updates_.rate;  // a new cluster starts with a full second's worth
  changes_.tokens = changes_.rate;
}

double UpdateRateLimit::Bucket::seconds_until(double wanted) const {
  if (enough(wanted)) {
    return 0;
  }
  return (std::min(wanted, rate) - tokens) / rate;
}

void UpdateRateLimit::refill(Clock::time_point now) {
  if (refilled_ == Clock::time_point{}) {
    refilled_ = now;
  }
  const double seconds = std::chrono::duration<double>(now - refilled_).count();
  refilled_ = std::max(refilled_, now);
  for (Bucket* bucket : {&updates_, &changes_}) {
    bucket->tokens = std::min(bucket->rate, bucket->tokens + seconds * bucket->rate);
  }
}

std::optional<std::chrono::milliseconds> UpdateRateLimit::admit(uint64_t node_changes,
                                                                Clock::time_point now) {
  if (updates_.rate == 0 && changes_.rate == 0) {
    return std::nullopt;
  }
  refill(now);
  const double changes = static_cast<double>(node_changes);
  if (now >= refused_until_ && updates_.enough(1) && changes_.enough(changes)) {
    updates_.tokens -= 1;
    changes_.tokens -= changes;
    return std::nullopt;
  }
  ++refused_;
  if (now >= refused_until_) {
    const double wait = std::max(updates_.seconds_until(1), changes_.seconds_until(changes));
    refused_until_ =
        now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(wait));
  }
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(refused_until_ - now);
  return std::max(left, std::chrono::milliseconds(1));
}

}  // namespace unisched::actors
