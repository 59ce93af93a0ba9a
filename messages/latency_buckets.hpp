// The buckets every latency histogram of unisched counts in (SchedulerSummary's decision
// latencies, the journal's fsyncs): upper bounds in seconds, as Prometheus exposes them.
#pragma once

#include <array>
#include <cstddef>

namespace unisched {

/// 100 us to 10 s: decisions and fsyncs on a busy machine span that.
inline constexpr std::array<double, 14> kLatencyBoundsSeconds{
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 10};

/// The bucket a duration falls in; kLatencyBoundsSeconds.size() for above the last bound.
inline size_t latency_bucket(double seconds) {
  size_t bucket = 0;
  while (bucket < kLatencyBoundsSeconds.size() && seconds > kLatencyBoundsSeconds[bucket]) {
    ++bucket;
  }
  return bucket;
}

}  // namespace unisched
