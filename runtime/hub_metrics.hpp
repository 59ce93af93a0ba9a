// The metrics of `serve`, `shard` and `agent --metrics` in Prometheus' text format, from what
// their actors report: per cluster, per scheduler, the journal and gRPC calls on the centre;
// the hosted clusters on a shard; the agent's own counters. Plain C++: the caller asks the
// actors (runtime/metrics_source.hpp).
#pragma once

#include <string>
#include <vector>

#include "messages/unisched.pb.h"

namespace unisched::runtime {

struct HubMetricsInput {
  v1::ClusterList clusters;
  std::vector<v1::SchedulerSummary> schedulers;  ///< by scheduler index
  /// Clusters or schedulers that did not answer the scrape in time.
  int missing_sources = 0;
};

std::string render_hub_metrics(const HubMetricsInput& input);

/// A shard's: the clusters whose ClusterActors it hosts (the same families as the hub's).
std::string render_shard_metrics(const v1::ClusterList& hosted, int missing_sources);

/// An agent's: what it observed of its cluster and sent to the centre.
std::string render_agent_metrics(const v1::AgentSummary& agent, int missing_sources);

}  // namespace unisched::runtime
