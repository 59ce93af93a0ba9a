// Bench scenario `scale`: Karmada's test size (100 clusters x 5,000 nodes) in one process:
// memory per node, then ingest, a full resync of one cluster, and scheduling throughput with
// one scheduler and with two racing ones at that size.
#pragma once

#include <cstdint>
#include <string>

#include "tools/bench/parameters.hpp"
#include "tools/bench/schedule.hpp"

namespace unisched::bench {

struct ScaleResult {
  double listing_seconds = 0;        ///< to list every cluster's nodes into the ClusterActors
  int64_t views_bytes = 0;           ///< resident growth once the ClusterActors hold every node
  int64_t with_scheduler_bytes = 0;  ///< ... and one SchedulerActor holds its copies too
  int64_t views_heap_bytes = 0;      ///< heap in use for the same, without allocator slack
  int64_t with_scheduler_heap_bytes = 0;
  IngestResult ingest;
  double resync_p50_ms = 0;  ///< one cluster pulls its agent's snapshot and applies it (median)
  ScheduleResult schedule;   ///< one scheduler (its copies give the memory figure above)
  ScheduleResult racing;     ///< two schedulers at once
  std::string problem;
};

ScaleResult scale(const StreamParameters& stream, const ScheduleParameters& schedule);

}  // namespace unisched::bench
