// splitmix64's finaliser: mixes 64 bits so that nearby inputs land far apart. For draws and
// orders that must repeat across runs and platforms.
#pragma once

#include <cstdint>

namespace unisched::policy {

/// The golden-ratio step splitmix64 adds between draws.
inline constexpr uint64_t kSplitmixStep = 0x9e3779b97f4a7c15ull;

inline uint64_t splitmix64(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace unisched::policy
