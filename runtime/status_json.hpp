// The status page's data (`/status.json`): clusters with their GPU use by model, the
// schedulers' queues, the requests waiting and the recent decisions with their per-cluster
// reasons, the quotas. Plain C++: the caller asks the actors (runtime/metrics_source.hpp).
#pragma once

#include <cstddef>
#include <string>

#include "messages/unisched.pb.h"
#include "runtime/hub_metrics.hpp"

namespace unisched::runtime {

struct StatusInput {
  HubMetricsInput hub;
  v1::RequestList requests;
  v1::QuotaList quotas;
};

/// At most `recent` decided requests, newest first.
std::string render_status_json(const StatusInput& input, size_t recent = 20);

}  // namespace unisched::runtime
