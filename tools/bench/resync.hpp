// Bench scenario: a full resync, as a ClusterActor does one: decode a ClusterSnapshot of N
// nodes from its wire bytes and rebuild the view from it.
#pragma once

#include <string>

namespace unisched::bench {

struct ResyncResult {
  double resync_ms = 0;       ///< median of the repetitions
  double decode_ms = 0;       ///< of which: bytes to model types
  double bytes_per_node = 0;  ///< on the wire
  std::string problem;
};

ResyncResult resync(int nodes, int repetitions);

}  // namespace unisched::bench
