// Questions a runtime asks the centre about its clusters, from outside the actors.
#pragma once

#include <caf/fwd.hpp>

#include <string>
#include <vector>

#include "actors/supervisor_interface.hpp"
#include "messages/unisched.pb.h"
#include "runtime/local_waits.hpp"

namespace unisched::runtime {

/// Each cluster's summary, through the supervisor; a cluster that does not answer is left out
/// and, when `problems` is given, named there.
std::vector<v1::ClusterSummary> query_summaries(caf::actor_system& system,
                                                const actors::SupervisorActor& supervisor,
                                                const std::vector<std::string>& ids,
                                                std::vector<std::string>* problems,
                                                const LocalWaits& waits = {});

/// Waits (up to `waits.clusters_healthy`) until every cluster is healthy; returns whether they
/// all are.
bool wait_until_healthy(caf::actor_system& system, const actors::SupervisorActor& supervisor,
                        const std::vector<std::string>& ids, const LocalWaits& waits = {});

}  // namespace unisched::runtime
