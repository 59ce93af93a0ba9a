// Bench scenario: delta ingest through the gRPC door, on loopback, into a centre running in the
// same process (hub, supervisor, ClusterActors), one update stream per cluster.
#pragma once

#include <cstdint>
#include <string>

namespace unisched::bench {

struct IngestParameters {
  int clusters = 4;
  int nodes = 1000;             ///< per cluster
  int deltas_per_update = 100;  ///< node deltas in each update
  int updates = 200;            ///< per cluster, after the first (which lists every node)
};

struct IngestResult {
  double deltas_per_s = 0;
  double updates_per_s = 0;
  double p50_ms = 0;  ///< from sending an update to its Ack
  double p99_ms = 0;
  uint64_t deltas = 0;
  double seconds = 0;
  std::string problem;  ///< empty when the run was clean (every update APPLIED)
};

IngestResult ingest_over_grpc(const IngestParameters& parameters);

}  // namespace unisched::bench
