// Bench scenario `ingest-remote` over gRPC: delta ingest through the gRPC door on loopback, into
// a centre running in the same process (hub, supervisor, ClusterActors), one stream per cluster.
#pragma once

#include "tools/bench/parameters.hpp"

namespace unisched::bench {

/// Every stream lists its nodes first; the clock runs from the first streamed update to the
/// last Ack. `window` does not apply: the protocol keeps one update in flight per stream.
IngestResult ingest_over_grpc(const StreamParameters& parameters);

}  // namespace unisched::bench
