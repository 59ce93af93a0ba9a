// The workload's client: submits requests to the schedulers in turn, records their decisions,
// and when placed work has run its time tells the clusters' agents to finish it.
//
#pragma once

#include <caf/fwd.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "actors/agent_interface.hpp"
#include "actors/scheduler_interface.hpp"
#include "runtime/local_waits.hpp"

namespace unisched::runtime {

/// The client's protocol, checked by the compiler:
///   (submit, request_id, SchedulingRequestSpec, runs_for_ms)   submit one request
///   (bind, cluster_id, agent)                                  the agent of a cluster
///   (summary)                                               -> WorkloadReport, with the
///                                                              schedulers' undecided requests
///   SchedulingDecision                                         a scheduler's later change to a
///                                                              decision it answered
///   ReleaseOrder                                               its own timer: placed work that
///                                                              ran its time, to finish
using WorkloadClientActor = actors::DecisionListenerActor::extend<
    caf::reacts_to<atoms::submit_atom, std::string, model::SchedulingRequestSpec, int64_t>,
    caf::reacts_to<atoms::bind_atom, std::string, actors::AgentActor>,
    caf::replies_to<atoms::summary_atom>::with<v1::WorkloadReport>,
    caf::reacts_to<v1::ReleaseOrder>>;

/// `waits.large_answer` bounds each scheduler's summary in a report.
WorkloadClientActor spawn_workload_client(caf::actor_system& system,
                                          const std::vector<actors::SchedulerActor>& schedulers,
                                          const LocalWaits& waits = {});

}  // namespace unisched::runtime
