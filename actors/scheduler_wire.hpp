// A scheduler's core on the wire: the one place its RequestDecision (cores/request_decision.hpp)
// becomes the v1::SchedulingDecision a scheduler answers its submitter with, and its
// SchedulerCounts the v1::SchedulerSummary it reports.
#pragma once

#include "cores/request_decision.hpp"
#include "cores/scheduler_counts.hpp"
#include "messages/unisched.pb.h"

namespace unisched::actors {

/// Each takes its argument by value: a decision moved in is moved into the message.
v1::SchedulingDecision::Replica to_wire(RequestDecision::Replica replica);
v1::SchedulingDecision to_wire(RequestDecision decision);
v1::SchedulerSummary to_wire(const SchedulerCounts& counts);

}  // namespace unisched::actors
