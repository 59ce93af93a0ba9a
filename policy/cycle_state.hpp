// What one decision draws from, made fresh for each decision from its seed, as kube-scheduler's
// CycleState is made for each scheduling cycle. Plugins draw from it and keep no state of their
// own between calls, so a decision repeats for its seed, and schedulers share nothing mutable.
#pragma once

#include <cstdint>
#include <random>

namespace unisched::policy {

class CycleState {
 public:
  explicit CycleState(uint64_t seed) : random_(seed) {}

  /// The next of this decision's random numbers.
  uint64_t draw() { return random_(); }
  std::mt19937_64& random() { return random_; }

 private:
  std::mt19937_64 random_;
};

}  // namespace unisched::policy
