// What a ClusterActor tells of its cluster when asked (`get clusters`, metrics, `describe`).
#pragma once

#include "cores/cluster_core.hpp"
#include "messages/unisched.pb.h"

namespace unisched::actors {

/// The core's view and counters as a summary; the actor adds what it alone knows (throttled
/// updates, how long since the view was last confirmed).
v1::ClusterSummary summarize(const ClusterCore& core);

}  // namespace unisched::actors
