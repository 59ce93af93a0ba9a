// The scheduler's protocol, checked by the compiler (actors/scheduler_actor.hpp says more).
#pragma once

#include <string>

#include "actors/cluster_interface.hpp"
#include "actors/quota_interface.hpp"

namespace unisched::actors {

/// Whoever submits requests to a scheduler hears of later changes to their decisions (a refused
/// replica placed again) as the request's SchedulingDecision as it then stands.
using DecisionListenerActor = caf::typed_actor<caf::reacts_to<v1::SchedulingDecision>>;

/// Decides where requests go and commits by compare-and-set; it subscribes to the views of the
/// clusters it schedules on and hears how its placements end.
///   (submit, request_id, spec)   -> SchedulingDecision once committed
///   (summary)                    -> SchedulerSummary
///   (join, ClusterRegistration)     schedule on this cluster too (hub mode)
///   (subscribe, cluster_id)         its own timer: subscribe to that cluster's view again
///   (process)                       its own timer: decide what is due; commits unanswered
///                                   past the commit timeout count as timed out
///   QuotaAdmission                  work that waited for quota is admitted: decide it again
using SchedulerActor =
    ViewSubscriberActor::extend_with<CommitterActor>::extend_with<AdmissionListenerActor>::extend<
        caf::replies_to<atoms::submit_atom, std::string,
                        model::SchedulingRequestSpec>::with<v1::SchedulingDecision>,
        caf::replies_to<atoms::summary_atom>::with<v1::SchedulerSummary>,
        caf::reacts_to<atoms::join_atom, v1::ClusterRegistration>,
        caf::reacts_to<atoms::subscribe_atom, std::string>, caf::reacts_to<atoms::process_atom>>;

}  // namespace unisched::actors
