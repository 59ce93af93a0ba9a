// The centre's metrics (`serve --metrics`) in Prometheus' text format, from what its hub and
// schedulers report: per cluster, per scheduler, and the journal. Plain C++: the caller asks
// the actors (runtime/metrics_source.hpp).
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

}  // namespace unisched::runtime
