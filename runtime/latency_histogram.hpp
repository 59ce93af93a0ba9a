// A histogram of durations in the fixed latency buckets (messages/latency_buckets.hpp), as
// Prometheus exposes them. Plain C++, safe to record from any thread.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <vector>

#include "messages/latency_buckets.hpp"

namespace unisched::runtime {

/// A snapshot: counts per bucket (not cumulative; the last for above every bound) and the sum.
struct LatencyCounts {
  std::vector<uint64_t> buckets = std::vector<uint64_t>(kLatencyBoundsSeconds.size() + 1, 0);
  double sum_seconds = 0;
};

class LatencyHistogram {
 public:
  void record(std::chrono::nanoseconds duration) {
    const double seconds = std::chrono::duration<double>(duration).count();
    buckets_[latency_bucket(seconds)].fetch_add(1, std::memory_order_relaxed);
    sum_nanoseconds_.fetch_add(static_cast<uint64_t>(duration.count()), std::memory_order_relaxed);
  }
  LatencyCounts counts() const {
    LatencyCounts out;
    for (size_t i = 0; i < buckets_.size(); ++i) {
      out.buckets[i] = buckets_[i].load(std::memory_order_relaxed);
    }
    out.sum_seconds = static_cast<double>(sum_nanoseconds_.load(std::memory_order_relaxed)) / 1e9;
    return out;
  }

 private:
  std::array<std::atomic<uint64_t>, kLatencyBoundsSeconds.size() + 1> buckets_{};
  std::atomic<uint64_t> sum_nanoseconds_{0};
};

}  // namespace unisched::runtime
