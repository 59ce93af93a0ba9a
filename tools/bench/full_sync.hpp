// Bench scenario `full-sync-baseline`: the design the seed argues against, measured in the same
// run as the incremental path. For the same churn (D node changes per cluster per interval),
// one fleet pushes deltas and another has its whole state pulled as a full snapshot each
// interval; bytes and CPU per interval are compared.
#pragma once

#include "tools/bench/parameters.hpp"

namespace unisched::bench {

struct FullSyncResult {
  IngestResult incremental;
  IngestResult full_sync;
};

FullSyncResult full_sync_baseline(const StreamParameters& parameters);

}  // namespace unisched::bench
