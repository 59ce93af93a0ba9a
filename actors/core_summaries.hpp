// What the cores' state becomes on the wire when someone asks for it (`get clusters`,
// `get agents`, metrics, `describe`): the conversion is the shell's, so the cores keep plain
// counters and no protobuf.
#pragma once

#include "cores/agent_core.hpp"
#include "cores/cluster_core.hpp"
#include "messages/unisched.pb.h"

namespace unisched::actors {

/// A ClusterCore's view and counters; the actor adds what it alone knows (throttled updates,
/// how long since the view was last confirmed).
v1::ClusterSummary summarize(const ClusterCore& core);

/// An AgentCore's position, counters and pending placements (`online` left false: the
/// transport knows whether it is connected).
v1::AgentSummary summarize(const AgentCore& core);

}  // namespace unisched::actors
