// splitmix64's finaliser: mixes 64 bits so that nearby inputs land far apart. For draws and
// orders that must repeat across runs and platforms.
#pragma once

#include <cstdint>
#include <string_view>

namespace unisched::policy {

/// The golden-ratio step splitmix64 adds between draws.
inline constexpr uint64_t kSplitmixStep = 0x9e3779b97f4a7c15ull;

inline uint64_t splitmix64(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// FNV-1a: a hash of a text that is the same on every platform and run.
inline uint64_t stable_hash(std::string_view text) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (const char c : text) {
    hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  }
  return hash;
}

/// The seed of one piece of work's draws: from the scheduler's seed and the work's id alone, so
/// it draws the same whatever was decided before it.
inline uint64_t decision_seed(uint64_t draw_seed, std::string_view work_id) {
  return splitmix64(draw_seed ^ stable_hash(work_id));
}

}  // namespace unisched::policy
