// The workload's client: submits requests to the schedulers in turn, records their decisions,
// and when placed work has run its time tells the clusters' agents to finish it.
//
// Protocol:
//   (submit_atom, request_id, SchedulingRequestSpec, runs_for_ms)   submit one request
//   (bind_atom, cluster_id, agent)                                  the agent of a cluster
//   (summary_atom)                                               -> WorkloadReport, with the
//                                                                   schedulers' undecided requests
#pragma once

#include <caf/fwd.hpp>

#include <vector>

#include "actors/scheduler_interface.hpp"

namespace unisched::runtime {

caf::actor spawn_workload_client(caf::actor_system& system,
                                 const std::vector<actors::SchedulerActor>& schedulers);

}  // namespace unisched::runtime
