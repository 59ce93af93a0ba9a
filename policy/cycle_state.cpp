#include "policy/cycle_state.hpp"

#include <algorithm>

namespace unisched::policy {

// The constants of std::mt19937_64 (C++ [rand.predef]).
namespace {
constexpr uint64_t kInitMultiplier = 6364136223846793005ULL;
constexpr uint64_t kTwistXor = 0xb5026f5aa96619e9ULL;
constexpr uint64_t kLowerMask = (uint64_t{1} << 31) - 1;
constexpr uint64_t kUpperMask = ~kLowerMask;

uint64_t temper(uint64_t y) {
  y ^= (y >> 29) & 0x5555555555555555ULL;
  y ^= (y << 17) & 0x71d67fffeda60000ULL;
  y ^= (y << 37) & 0xfff7eee000000000ULL;
  return y ^ (y >> 43);
}
}  // namespace

void LazyMersenneTwister64::seed_through(size_t last) {
  for (; seeded_ <= last; ++seeded_) {
    const uint64_t before = words_[seeded_ - 1];
    words_[seeded_] = kInitMultiplier * (before ^ (before >> 62)) + seeded_;
  }
}

uint64_t LazyMersenneTwister64::operator()() {
  if (next_ == kWords) {
    next_ = 0;
  }
  // The standard engine twists its words in this order, each in place, the whole state at
  // once; twisted one by one as drawn, each sees the same words: the one after it not yet
  // twisted, and the one kShift away twisted when it lies behind.
  const size_t word = next_++;
  seed_through(std::min(word + kShift, kWords - 1));
  const uint64_t joined = (words_[word] & kUpperMask) | (words_[(word + 1) % kWords] & kLowerMask);
  words_[word] = words_[(word + kShift) % kWords] ^ (joined >> 1) ^ ((joined & 1) ? kTwistXor : 0);
  return temper(words_[word]);
}

}  // namespace unisched::policy
