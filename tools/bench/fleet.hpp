// A fleet of bench agents, one per cluster, driven from the bench's own thread: list every
// cluster's nodes, then stream updates and measure.
#pragma once

#include <caf/fwd.hpp>
#include <caf/scoped_actor.hpp>

#include <memory>
#include <string>
#include <vector>

#include "tools/bench/bench_actors.hpp"
#include "tools/bench/parameters.hpp"

namespace unisched::bench {

class Fleet {
 public:
  /// Spawns the agents; each registers with `centre` and lists its nodes at once.
  Fleet(caf::actor_system& system, const CentreActor& centre, const StreamParameters& parameters,
        std::shared_ptr<VisibilityLog> visibility);
  ~Fleet();  ///< stops the agents
  Fleet(const Fleet&) = delete;
  Fleet& operator=(const Fleet&) = delete;

  /// Waits until every listing was applied; returns the first problem, empty when none.
  std::string wait_listed();

  /// Streams every agent's updates and measures from the first one to the last Ack.
  IngestResult stream();

  /// wait_listed(), then stream() if the listings went well.
  IngestResult list_and_stream();

 private:
  StreamParameters parameters_;
  caf::scoped_actor coordinator_;
  std::vector<std::shared_ptr<AgentRecord>> records_;
  std::vector<BenchAgentActor> agents_;
};

}  // namespace unisched::bench
