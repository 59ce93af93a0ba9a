// Metadata agent actor: sits beside its cluster, owns the adapter (through cores/agent_core),
// observes it every observe interval and pushes coalesced incremental updates to the cluster's
// ClusterActor every push interval.
//
// Its protocol is AgentActor (actors/agent_interface.hpp); a LocalAgentActor also takes its own
// timers and (online, bool): false cuts the agent off (a network partition in tests): it keeps
// observing, but pushes and answers nothing until true again.
#pragma once

#include <caf/fwd.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "actors/agent_interface.hpp"

namespace unisched::adapters {
class ClusterAdapter;
}

namespace unisched::actors {

struct AgentSettings {
  std::chrono::milliseconds observe_interval{100};
  std::chrono::milliseconds push_interval{1000};
  std::chrono::milliseconds push_timeout{2000};  ///< how long to wait for an Ack
  /// Opens a direct connection to a shard's HOST:PORT (set by processes that have a network).
  std::function<void(const std::string&)> connect_directly;
};

/// An agent actor of this process: the agent protocol, its timers, the partition switch, and
/// (summary) -> AgentSummary for its metrics.
using LocalAgentActor =
    AgentActor::extend<caf::reacts_to<atoms::observe_atom>, caf::reacts_to<atoms::push_atom>,
                       caf::reacts_to<atoms::retry_atom>, caf::reacts_to<atoms::online_atom, bool>,
                       caf::replies_to<atoms::summary_atom>::with<v1::AgentSummary>>;

/// `epoch` must differ from any earlier run's for the same cluster.
LocalAgentActor spawn_agent_actor(caf::actor_system& system,
                                  std::shared_ptr<adapters::ClusterAdapter> adapter, uint64_t epoch,
                                  const AgentSettings& settings);

}  // namespace unisched::actors
