// Placements a cluster answers later (a Kubernetes pod bound now, admitted or refused by its
// kubelet afterwards): the agent reports each once the adapter says how it ended, an applied one
// together with its node changes, a refused one with the cluster's own reason; and work that
// ends by itself is reported finished, once.
#include <boost/test/unit_test.hpp>

#include <map>
#include <utility>

#include "cores/agent_core.hpp"
#include "tests/simulation_fixtures.hpp"

using namespace unisched;
using adapters::LaterOutcome;
using adapters::Placement;
using adapters::PlacementOutcome;

namespace {

/// A simulated cluster that decides its placements only when the test says so.
class DeferringCluster final : public adapters::ClusterAdapter {
 public:
  DeferringCluster() : inner_(testing::simulated(7, 0, 0)) {}

  const model::ClusterResourceProfile& profile() const override { return inner_->profile(); }
  std::vector<model::NodeState> list_nodes() const override { return inner_->list_nodes(); }
  std::vector<model::NodeChange> poll_changes() override { return inner_->poll_changes(); }
  model::ClusterResources resources() const override { return inner_->resources(); }
  PlacementOutcome apply(const Placement& placement) override {
    waiting_[placement.id] = placement;
    return PlacementOutcome::Pending;
  }
  bool release(const std::string& id) override {
    released_.push_back(id);
    return inner_->release(id);
  }
  std::vector<std::string> running_placements() const override {
    std::vector<std::string> ids = inner_->running_placements();
    for (const auto& [id, placement] : waiting_) {
      ids.push_back(id);
    }
    return ids;
  }
  std::vector<LaterOutcome> poll_outcomes() override { return std::move(decided_); }
  std::vector<std::string> poll_finished() override { return std::exchange(ended_, {}); }

  /// The placement's work ends by itself (a pod completes).
  void end(const std::string& id) { ended_.push_back(id); }

  /// Admits the placement (its resources are taken now) or refuses it with `reason`.
  void decide(const std::string& id, bool admit, const std::string& reason = {}) {
    const Placement placement = waiting_.at(id);
    waiting_.erase(id);
    if (admit) {
      BOOST_TEST_REQUIRE((inner_->apply(placement) == PlacementOutcome::Applied));
      decided_.push_back({id, PlacementOutcome::Applied, {}});
    } else {
      decided_.push_back({id, PlacementOutcome::DoesNotFit, reason});
    }
  }

  std::vector<std::string> released_;

 private:
  std::unique_ptr<adapters::SimulatedCluster> inner_;
  std::map<std::string, Placement> waiting_;
  std::vector<LaterOutcome> decided_;
  std::vector<std::string> ended_;
};

model::Reservation reservation(const std::string& id, const std::string& node) {
  return model::Reservation{id, node, 2000, int64_t{1} << 30, {}, {}, {}, {}};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(pending_outcome)

BOOST_AUTO_TEST_CASE(outcomes_that_come_later_are_reported_when_they_come) {
  auto cluster = std::make_shared<DeferringCluster>();
  actors::AgentCore agent(cluster, 3);
  agent.observe();
  BOOST_TEST_REQUIRE(agent.next_update().has_value());  // the first listing
  const std::string node = cluster->list_nodes().front().name;
  const int64_t cpu_before = cluster->list_nodes().front().allocated_cpu_milli;
  agent.carry_out(
      {reservation("job/0", node), reservation("job/1", node), reservation("job/2", node)});
  BOOST_TEST(agent.pending_placements() == 3u);
  agent.observe();
  BOOST_TEST(!agent.next_update().has_value());  // nothing decided, nothing to say
  cluster->decide("job/0", true);
  cluster->decide("job/1", false, "OutOfcpu: Node didn't have enough resource: cpu");
  agent.observe();
  auto update = agent.next_update();
  BOOST_TEST_REQUIRE(update.has_value());
  BOOST_TEST(update->applied_placements == std::vector<std::string>{"job/0"});
  BOOST_TEST_REQUIRE(update->refused_placements.size() == 1u);
  BOOST_TEST(update->refused_placements[0].first == "job/1");
  BOOST_TEST(update->refused_placements[0].second ==
             "OutOfcpu: Node didn't have enough resource: cpu");
  // The applied placement's cpu is in the same update.
  BOOST_TEST_REQUIRE(update->changes.size() == 1u);
  BOOST_TEST(update->changes[0].node->allocated_cpu_milli == cpu_before + 2000);
  BOOST_TEST(agent.pending_placements() == 1u);
  // Finished while still pending: released, and a late answer is ignored.
  agent.finish({"job/2"});
  BOOST_TEST(cluster->released_ == std::vector<std::string>{"job/2"});
  cluster->decide("job/2", false, "too late");
  agent.observe();
  const auto after = agent.next_update();
  BOOST_TEST_REQUIRE(after.has_value());
  BOOST_TEST(after->refused_placements.empty());
  BOOST_TEST(after->finished_placements == std::vector<std::string>{"job/2"});  // finish()ed
  BOOST_TEST(agent.pending_placements() == 0u);
  BOOST_TEST(agent.counters().placements_applied == 1u);
  BOOST_TEST(agent.counters().placements_refused == 1u);
  // Work that ends by itself is reported finished once, also work an earlier run of the agent
  // started (found by `unisched simulate --faults agent-crash`: such work stayed PLACED).
  cluster->end("job/0");
  cluster->end("started-before-a-restart/0");
  agent.observe();
  const auto ended = agent.next_update();
  BOOST_TEST_REQUIRE(ended.has_value());
  BOOST_TEST((ended->finished_placements ==
              std::vector<std::string>{"job/0", "started-before-a-restart/0"}));
  cluster->end("job/0");
  agent.observe();
  const auto again = agent.next_update();
  BOOST_TEST((!again.has_value() || again->finished_placements.empty()));
}

BOOST_AUTO_TEST_SUITE_END()
