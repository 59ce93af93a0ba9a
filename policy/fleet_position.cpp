#include "policy/fleet_position.hpp"

#include <algorithm>

namespace unisched::policy {

size_t cluster_at(absl::Span<const size_t> ends, size_t at) {
  // A guess in proportion, exact when the clusters are of one size, then a few steps; a binary
  // search over 100 clusters for every draw was a twentieth of a sampled decision, most of it
  // mispredicted branches. Far-off guesses (clusters of very different sizes) fall back to it.
  const double share = static_cast<double>(at) / static_cast<double>(ends.back());
  size_t index =
      std::min(static_cast<size_t>(share * static_cast<double>(ends.size())), ends.size() - 1);
  for (int step = 0; step < 4; ++step) {
    if (ends[index] <= at) {
      ++index;
    } else if (index > 0 && ends[index - 1] > at) {
      --index;
    } else {
      return index;
    }
  }
  return static_cast<size_t>(std::upper_bound(ends.begin(), ends.end(), at) - ends.begin());
}

}  // namespace unisched::policy
