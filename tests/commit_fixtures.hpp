// A quiet simulated cluster's agent and its centre view, for tests of commits and of what
// travels between them.
#pragma once

#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "cores/agent_core.hpp"
#include "cores/cluster_core.hpp"
#include "tests/simulation_fixtures.hpp"

namespace unisched::testing {

/// A quiet simulated cluster (no background churn) whose centre view is current and healthy.
struct Pair {
  actors::AgentCore agent{simulated(1, 0.0, 0.0), 1};
  actors::ClusterCore centre{"sim"};

  Pair() {
    sync();
    centre.set_healthy(true);
  }
  /// The agent's next update, applied at the centre; what the centre's actor is to do then.
  actors::ClusterEffects sync() {
    agent.observe();
    if (auto update = agent.next_update()) {
      auto outcome = centre.on_update(*update);
      BOOST_TEST_REQUIRE((outcome.status == actors::AckStatus::Applied));
      return std::move(outcome.effects);
    }
    return {};
  }
  /// The agent carries out what the centre accepted.
  actors::ClusterEffects carry_out(const actors::Commit& commit) {
    agent.carry_out(commit.reservations);
    return sync();
  }
};

inline model::Reservation reservation(const std::string& id, const std::string& node, int64_t cpu,
                                      std::vector<int32_t> devices = {},
                                      std::vector<int32_t> ports = {}) {
  return model::Reservation{id, node, cpu, int64_t{1} << 30, std::move(devices), std::move(ports),
                            {}, {}};
}

inline actors::Commit commit_at(const actors::ClusterCore& centre,
                                std::vector<model::Reservation> r) {
  actors::Commit commit;
  commit.request_id = r.front().id;
  commit.revision = centre.revision();
  for (const auto& x : r) {
    commit.node_revisions[x.node] = centre.published().snapshot().node_revisions.at(x.node);
  }
  commit.reservations = std::move(r);
  return commit;
}

/// A commit of `r` at the centre's revision, which the centre must accept.
inline actors::Commit accepted_commit(Pair& pair, std::vector<model::Reservation> r) {
  const actors::Commit commit = commit_at(pair.centre, std::move(r));
  BOOST_TEST_REQUIRE((pair.centre.commit(commit, actors::CommitMode::ClusterRevision).status ==
                      actors::CommitStatus::Accepted));
  return commit;
}

}  // namespace unisched::testing
