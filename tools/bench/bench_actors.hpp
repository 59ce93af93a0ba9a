// The actors the bench scenarios put around the real ClusterActors and SchedulerActors:
//   - a centre (registry): spawns a ClusterActor for each agent that registers, as the
//     supervisor would, marks it healthy, and tells schedulers where each one is;
//   - a view mirror: subscribes to a ClusterActor and keeps a copy of its view exactly as a
//     SchedulerActor does, noting when each revision became visible;
//   - a bench agent: lists its cluster's nodes, then streams updates of random node changes as
//     fast as the Acks come back, with a window of updates in flight.
#pragma once

#include <caf/fwd.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "actors/supervisor_interface.hpp"
#include "tools/bench/fixtures.hpp"
#include "tools/bench/parameters.hpp"

namespace unisched::bench {

/// When each update of each cluster was pushed and became visible in a mirror. Written by the
/// actors, read by the bench thread once they are done: index [cluster][version].
struct VisibilityLog {
  VisibilityLog(int clusters, int versions);
  std::vector<std::vector<Clock::time_point>> pushed;
  std::vector<std::vector<Clock::time_point>> visible;
  /// Push-to-visible latencies (ms) of every version seen on both sides.
  std::vector<double> latencies_ms() const;
  /// Whether every mirror has seen its cluster's last version (the scenario may read then).
  bool complete() const { return mirrors_done >= static_cast<int>(visible.size()); }
  std::atomic<int> mirrors_done{0};
};

/// What one agent saw; written by its actor, read after it reported done.
struct AgentRecord {
  std::vector<double> ack_ms;  ///< per streamed update: push to Ack
  uint64_t bytes = 0;          ///< protobuf size of the streamed updates or pulled snapshots
  std::string problem;         ///< the first update that was not APPLIED, or a failed step
};

/// The bench's stand-in for the supervisor: a directory of the ClusterActors it starts for the
/// agents that register with (register, cluster_id, index).
using CentreActor = actors::ClusterDirectoryActor::extend<
    caf::replies_to<atoms::register_atom, std::string, int32_t>::with<actors::ClusterActor>>;

/// A bench agent: the agent protocol, and the bench's own (push) to start streaming and
/// (observe) timer for paced streams.
using BenchAgentActor = actors::AgentActor::extend<caf::reacts_to<atoms::push_atom>,
                                                   caf::reacts_to<atoms::observe_atom>,
                                                   caf::reacts_to<atoms::process_atom>>;

/// `visibility` may be null (no mirrors). The centre's ClusterActors stop when it does.
CentreActor spawn_centre(caf::actor_system& system, std::shared_ptr<VisibilityLog> visibility);

/// Agent `index` (cluster bench-INDEX) registers with `centre` and lists its nodes, then tells
/// `coordinator` (online_atom, index). On (push_atom) it streams, then tells the coordinator
/// (summary_atom, index). It carries out the placements it is ordered to and reports them each
/// observe interval, and answers snapshot pulls with its nodes.
BenchAgentActor spawn_bench_agent(caf::actor_system& system, const CentreActor& centre,
                                  const caf::actor& coordinator, int index,
                                  const StreamParameters& parameters,
                                  std::shared_ptr<VisibilityLog> visibility,
                                  std::shared_ptr<AgentRecord> record);

/// The id of cluster `index` in every scenario.
std::string cluster_name(int index);

}  // namespace unisched::bench
