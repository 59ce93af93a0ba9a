// A bench client: submits one kind of request to a SchedulerActor for a while, keeping
// `window` requests outstanding, and records each decision's latency.
#pragma once

#include <caf/fwd.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "actors/scheduler_interface.hpp"
#include "model/scheduling_request.hpp"
#include "tools/bench/fixtures.hpp"

namespace unisched::bench {

/// What one client saw; written by its actor, read after it reported done.
struct ClientRecord {
  std::vector<double> decision_ms;  ///< submission to decision
  uint64_t placed = 0;
  uint64_t not_placed = 0;  ///< partially placed or unschedulable
  std::string problem;
};

/// On (push_atom) the client submits for `duration`, then tells `coordinator`
/// (summary_atom, index) once its last decision is back.
caf::actor spawn_bench_client(caf::actor_system& system, const actors::SchedulerActor& scheduler,
                              const caf::actor& coordinator, int index,
                              const model::SchedulingRequestSpec& spec, int window,
                              std::chrono::milliseconds duration,
                              std::shared_ptr<ClientRecord> record);

}  // namespace unisched::bench
