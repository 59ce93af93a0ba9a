// What one decision draws from, made fresh for each decision from its seed, as kube-scheduler's
// CycleState is made for each scheduling cycle. Plugins draw from it and keep no state of their
// own between calls, so a decision repeats for its seed, and schedulers share nothing mutable.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace unisched::policy {

/// std::mt19937_64's numbers for a seed, bit for bit, each word of its state made when a draw
/// first needs it. Seeding the standard engine fills all 312 words and its first draw twists
/// them all, where a decision draws a few dozen numbers: that was a tenth of a sampled decision.
/// The numbers must stay the standard engine's: decisions (and replays) repeat for a seed.
class LazyMersenneTwister64 {
 public:
  explicit LazyMersenneTwister64(uint64_t seed) { words_[0] = seed; }

  uint64_t operator()();

 private:
  static constexpr size_t kWords = 312;
  static constexpr size_t kShift = 156;
  /// Fills the seed's words up to `last` (included).
  void seed_through(size_t last);

  std::array<uint64_t, kWords> words_;
  size_t seeded_ = 1;  ///< words of the seed filled so far
  size_t next_ = 0;    ///< the word the next draw twists and returns
};

class CycleState {
 public:
  explicit CycleState(uint64_t seed) : random_(seed) {}

  /// The next of this decision's random numbers.
  uint64_t draw() { return random_(); }

 private:
  LazyMersenneTwister64 random_;
};

}  // namespace unisched::policy
