// The workload of a trace replay, as the FGD paper's simulator builds it (see METHOD.md beside
// the trace): the order pods arrive in, and each pod as a SchedulingRequest.
#pragma once

#include <cstdint>
#include <vector>

#include "adapters/gpu_trace.hpp"
#include "model/node_state.hpp"
#include "model/scheduling_request.hpp"

namespace unisched::adapters {

/// GPU milli a pod asks for: its GPUs times its share of each.
int64_t requested_gpu_milli(const TracePod& pod);

/// GPU milli the nodes hold: 1000 per GPU.
int64_t gpu_capacity_milli(const std::vector<TraceNode>& nodes);

/// The pods in the order they arrive: sorted by name, shuffled with `seed`, then grown, while
/// the GPU milli asked for stays under `tune` x `capacity_milli`, by copies of pods drawn at
/// random (with replacement) from the list, named "<name>-copy-<n>". `tune` 0: no copies.
std::vector<TracePod> arrival_order(std::vector<TracePod> pods, uint64_t seed, double tune,
                                    int64_t capacity_milli);

/// One replica of the pod: its cpu and memory, and its GPUs (whole, or a share of one) of the
/// models it allows.
model::SchedulingRequestSpec request_for(const TracePod& pod);

}  // namespace unisched::adapters
