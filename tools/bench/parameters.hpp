// The parameters and figures of the ingest scenarios, whatever the transport.
#pragma once

#include <cstdint>
#include <string>

namespace unisched::bench {

struct StreamParameters {
  int clusters = 4;
  int nodes = 1000;             ///< per cluster
  int deltas_per_update = 100;  ///< node changes in each streamed update
  int updates = 500;            ///< streamed per cluster, after the first (the listing)
  int window = 1;               ///< updates in flight per agent (1: wait for each Ack)
  int rate = 0;  ///< updates per second per agent, paced by a timer; 0: as fast as Acks come
  int gpus = 8;  ///< per node
  /// The design the seed argues against: instead of each update, the agent changes its nodes
  /// and the ClusterActor pulls its whole state as a full snapshot.
  bool full_sync = false;
  /// A node whose usage alone changed is sent whole, as agents sent every change before
  /// NodeDelta USAGE (for comparison); otherwise as its usage.
  bool whole_states = false;
};

struct IngestResult {
  uint64_t deltas = 0;     ///< node changes streamed and applied
  uint64_t bytes = 0;      ///< on the wire (protobuf size) for the streamed updates or snapshots
  double seconds = 0;      ///< from the first streamed update to the last Ack
  double cpu_seconds = 0;  ///< of the whole process over those seconds
  double deltas_per_s = 0;
  double ack_p50_ms = 0;  ///< push to Ack
  double ack_p99_ms = 0;
  double visible_p50_ms = 0;  ///< push to visible in a scheduler-side copy (in process only)
  double visible_p99_ms = 0;
  std::string problem;  ///< empty when every update was APPLIED
};

}  // namespace unisched::bench
