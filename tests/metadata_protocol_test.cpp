// The metadata protocol end to end without actors: an agent's updates reach the centre's view
// through an unreliable channel, and the view always converges to the agent's truth.
#include <boost/test/unit_test.hpp>
#include <deque>
#include <random>

#include "cores/agent_core.hpp"
#include "cores/cluster_core.hpp"
#include "messages/convert.hpp"
#include "tests/simulation_fixtures.hpp"

using namespace unisched;
using actors::AckStatus;
using actors::AgentCore;
using actors::ClusterCore;

namespace {

/// Delivers updates with seeded drops, duplicates and reordering, and answers snapshot pulls
/// after a delay (so updates keep arriving while a resync is in flight).
class UnreliableChannel {
 public:
  UnreliableChannel(uint64_t seed, double drop, double duplicate, double reorder)
      : random_(seed), drop_(drop), duplicate_(duplicate), reorder_(reorder) {}

  void send(model::ViewUpdate update) {
    if (chance(drop_)) {
      return;
    }
    if (chance(duplicate_)) {
      in_flight_.push_back(update);
    }
    if (chance(reorder_)) {
      held_back_.push_back(std::move(update));  // overtaken by later ones
    } else {
      in_flight_.push_back(std::move(update));
    }
  }

  /// Delivers what is in flight, and now and then what was held back; whether the centre
  /// asked for a snapshot pull on the way.
  bool deliver(ClusterCore& centre) {
    if (!held_back_.empty() && chance(0.5)) {
      in_flight_.push_back(std::move(held_back_.front()));
      held_back_.pop_front();
    }
    bool pull = false;
    while (!in_flight_.empty()) {
      pull = centre.on_update(in_flight_.front()).effects.pull_snapshot || pull;
      in_flight_.pop_front();
    }
    return pull;
  }

  bool flush(ClusterCore& centre) {
    bool pull = false;
    while (!held_back_.empty() || !in_flight_.empty()) {
      pull = deliver(centre) || pull;
    }
    return pull;
  }

  bool chance(double p) { return std::bernoulli_distribution(p)(random_); }

 private:
  std::mt19937_64 random_;
  double drop_, duplicate_, reorder_;
  std::deque<model::ViewUpdate> in_flight_;
  std::deque<model::ViewUpdate> held_back_;
};

/// One round of the centre's resync duty: pull a snapshot when it asked for one (`asked`), or
/// when a failed pull's backoff (one round) has passed.
void serve_resync(ClusterCore& centre, AgentCore& agent, UnreliableChannel& channel, bool asked) {
  if (asked || centre.resume_resync().pull_snapshot) {
    if (channel.chance(0.2)) {
      BOOST_TEST(centre.on_resync_failed().pull_after_backoff);  // the pull got no answer
    } else {
      BOOST_TEST(!centre.on_snapshot(agent.snapshot()).problem.has_value());
    }
  }
}

/// What a supervisor's probes do at the end: report the agent's position twice.
void probe_until_current(ClusterCore& centre, AgentCore& agent) {
  for (int round = 0; round < 4 && centre.position().version != agent.version(); ++round) {
    if (centre.on_agent_position(agent.epoch(), agent.version()).pull_snapshot) {
      BOOST_TEST(!centre.on_snapshot(agent.snapshot()).problem.has_value());
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(metadata_protocol)

BOOST_AUTO_TEST_CASE(in_order_deltas_give_exactly_the_agents_state) {
  for (uint64_t seed = 1; seed <= 25; ++seed) {
    AgentCore agent(testing::simulated(seed), 1000 + seed);
    ClusterCore centre("sim");
    for (int step = 0; step < 300; ++step) {
      agent.observe();
      if (step % 3 == 2) {  // push every third observation: changes coalesce in between
        if (auto update = agent.next_update()) {
          const auto outcome = centre.on_update(*update);
          BOOST_TEST_REQUIRE((outcome.status == AckStatus::Applied), outcome.error);
        }
      }
    }
    if (auto update = agent.next_update()) {
      centre.on_update(*update);
    }
    const std::string context = "seed " + std::to_string(seed);
    testing::expect_view_matches(centre.view(), agent.adapter().list_nodes(), context);
    BOOST_TEST((centre.view().resources() == agent.adapter().resources()), context);
    BOOST_TEST(centre.counters().resyncs == 0u, context);
    BOOST_TEST(centre.counters().gaps == 0u, context);
    BOOST_TEST(agent.counters().coalesced > 0u, context);
  }
}

BOOST_AUTO_TEST_CASE(a_large_first_listing_goes_out_in_bounded_consecutive_updates) {
  adapters::SimulationOptions options;
  options.node_count = 25'000;
  options.membership_events_per_second = 0;
  options.pod_events_per_second = 0;
  AgentCore agent(std::make_unique<adapters::SimulatedCluster>(testing::small_profile(), options),
                  7);
  agent.observe();
  ClusterCore centre("sim");
  std::vector<size_t> sizes;
  while (auto update = agent.next_update()) {
    sizes.push_back(update->changes.size());
    const auto outcome = centre.on_update(*update);
    BOOST_TEST_REQUIRE((outcome.status == AckStatus::Applied), outcome.error);
  }
  BOOST_TEST(sizes == (std::vector<size_t>{10'000, 10'000, 5'000}));
  BOOST_TEST(!agent.has_pending_changes());
  BOOST_TEST(agent.version() == 3u);
  testing::expect_view_matches(centre.view(), agent.adapter().list_nodes(), "split listing");
  // A receiver refuses one update that carries them all, saying why.
  model::ViewUpdate whole;
  whole.cluster_id = "sim";
  whole.epoch = 8;
  whole.version = 1;
  for (model::NodeState& node : agent.adapter().list_nodes()) {
    whole.changes.push_back(model::share({model::NodeChangeKind::Add, std::move(node)}));
  }
  const auto refused = messages::from_proto(messages::to_proto(whole));
  BOOST_TEST_REQUIRE(!refused.has_value());
  BOOST_TEST(refused.error() ==
             "node_deltas: Too many: 25000: must have at most 10000 items (split the changes over "
             "consecutive updates, or send a full snapshot)");
}

BOOST_AUTO_TEST_CASE(duplicates_reorders_and_drops_never_corrupt_the_view) {
  uint64_t duplicates = 0;
  uint64_t gaps = 0;
  uint64_t resyncs = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    AgentCore agent(testing::simulated(seed), 7 + seed);
    ClusterCore centre("sim");
    UnreliableChannel channel(seed * 31, 0.05, 0.1, 0.1);
    for (int step = 0; step < 200; ++step) {
      agent.observe();
      if (auto update = agent.next_update()) {
        channel.send(std::move(*update));
      }
      serve_resync(centre, agent, channel, channel.deliver(centre));
      // Whatever was applied is always a state the agent really had: never half of one update.
      const auto expected = agent.snapshot();
      if (centre.position().version == expected.version) {
        testing::expect_view_matches(
            centre.view(), expected.nodes,
            "seed " + std::to_string(seed) + " step " + std::to_string(step));
      }
    }
    serve_resync(centre, agent, channel, channel.flush(centre));
    probe_until_current(centre, agent);
    const std::string context = "seed " + std::to_string(seed);
    BOOST_TEST(centre.position().version == agent.version(), context);
    testing::expect_view_matches(centre.view(), agent.adapter().list_nodes(), context);
    duplicates += centre.counters().duplicates;
    gaps += centre.counters().gaps;
    resyncs += centre.counters().resyncs;
  }
  // The faults really happened, and were handled as the protocol says.
  BOOST_TEST(duplicates > 0u);
  BOOST_TEST(gaps > 0u);
  BOOST_TEST(resyncs > 0u);
}

BOOST_AUTO_TEST_CASE(a_lost_last_update_is_found_by_probes) {
  AgentCore agent(testing::simulated(5), 11);
  ClusterCore centre("sim");
  agent.observe();
  centre.on_update(*agent.next_update());
  agent.observe();
  const auto lost = agent.next_update();  // never delivered
  BOOST_TEST_REQUIRE(lost.has_value());
  // could still be in flight
  BOOST_TEST(!centre.on_agent_position(agent.epoch(), agent.version()).pull_snapshot);
  // still missing: lost
  BOOST_TEST_REQUIRE(centre.on_agent_position(agent.epoch(), agent.version()).pull_snapshot);
  BOOST_TEST(!centre.on_snapshot(agent.snapshot()).problem.has_value());
  testing::expect_view_matches(centre.view(), agent.adapter().list_nodes(), "after resync");
  for (const auto& node : agent.snapshot().nodes) {  // the agent's own states, not copies
    BOOST_TEST(centre.view().find(node->name) == node.get(), node->name);
  }
  BOOST_TEST(centre.counters().gaps == 1u);
}

// The first listing goes out as updates; a later relist of the whole cluster goes once as a
// snapshot holding everything observed, after which updates follow again.
BOOST_AUTO_TEST_CASE(a_relist_is_pushed_whole_once) {
  auto relisting = std::make_shared<testing::RelistingCluster>(testing::simulated(4));
  AgentCore agent(relisting, 3);
  relisting->relist_next();
  agent.observe();
  BOOST_TEST((agent.on_push_due() == AgentCore::PushKind::Updates));  // the first listing
  BOOST_TEST_REQUIRE(agent.next_update().has_value());
  relisting->relist_next();
  agent.observe();
  BOOST_TEST((agent.on_push_due() == AgentCore::PushKind::WholeSnapshot));
  BOOST_TEST(!agent.has_pending_changes());  // folded into the snapshot's version
  BOOST_TEST(agent.snapshot().version == agent.version());
  agent.observe();
  BOOST_TEST((agent.on_push_due() == AgentCore::PushKind::Updates));
}

BOOST_AUTO_TEST_CASE(a_restarted_agent_is_resynced_in_full) {
  auto adapter = testing::simulated(9);
  ClusterCore centre("sim");
  AgentCore first(testing::simulated(9), 1);
  first.observe();
  centre.on_update(*first.next_update());
  AgentCore second(std::move(adapter), 2);  // a new run: a new epoch, versions from 1 again
  second.observe();
  const auto update = second.next_update();
  const auto gap = centre.on_update(*update);
  BOOST_TEST((gap.status == AckStatus::Gap));
  BOOST_TEST_REQUIRE(gap.effects.pull_snapshot);
  BOOST_TEST(!centre.on_snapshot(second.snapshot()).problem.has_value());
  BOOST_TEST(centre.position().epoch == 2u);
  testing::expect_view_matches(centre.view(), second.adapter().list_nodes(), "new epoch");
}

BOOST_AUTO_TEST_CASE(a_stale_snapshot_is_ignored) {
  AgentCore agent(testing::simulated(3), 4);
  ClusterCore centre("sim");
  agent.observe();
  centre.on_update(*agent.next_update());
  const auto old = agent.snapshot();
  agent.observe();
  centre.on_update(*agent.next_update());
  BOOST_TEST_REQUIRE(centre.request_resync().pull_snapshot);
  BOOST_TEST(!centre.on_snapshot(old).problem.has_value());
  BOOST_TEST(centre.position().version == 2u);  // not rolled back
  BOOST_TEST(centre.counters().resyncs == 0u);
  BOOST_TEST(!centre.resyncing());
}

BOOST_AUTO_TEST_CASE(subscribers_get_the_changes_since_a_version) {
  AgentCore agent(testing::simulated(2), 3);
  ClusterCore centre("sim");
  for (int i = 0; i < 5; ++i) {
    agent.observe();
    if (auto update = agent.next_update()) {
      centre.on_update(*update);
    }
  }
  const auto since_two = centre.published().changes_since(2);
  BOOST_TEST_REQUIRE(since_two.has_value());
  BOOST_TEST(since_two->size() == centre.revision() - 2);
  BOOST_TEST(since_two->front()->base_revision == 2u);
  BOOST_TEST(centre.published().changes_since(centre.revision())->empty());
  BOOST_TEST(centre.request_resync().pull_snapshot);
  BOOST_TEST(!centre.on_snapshot(agent.snapshot()).problem.has_value());
  BOOST_TEST(!centre.published().changes_since(2).has_value());  // after a snapshot: the whole view
}

BOOST_AUTO_TEST_SUITE_END()
