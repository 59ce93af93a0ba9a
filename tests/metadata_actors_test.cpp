// The metadata plane with real actors: agents, ClusterActors and the supervisor in one system,
// run deterministically on a virtual clock (tests/deterministic_system.hpp).
#include <caf/send.hpp>
#include <caf/typed_event_based_actor.hpp>

#include <boost/test/unit_test.hpp>

#include "actors/agent_actor.hpp"
#include "actors/grpc_agent_proxy.hpp"
#include "actors/supervisor.hpp"
#include "messages/convert.hpp"
#include "messages/snapshot_parts.hpp"
#include "tests/deterministic_system.hpp"
#include "tests/simulation_fixtures.hpp"

using namespace unisched;
using namespace unisched::atoms;
using testing::DeterministicSystem;

namespace {

actors::AgentSettings fast_agent() {
  actors::AgentSettings settings;
  settings.observe_interval = std::chrono::milliseconds(5);
  settings.push_interval = std::chrono::milliseconds(20);
  settings.push_timeout = std::chrono::milliseconds(500);
  return settings;
}

actors::SupervisorSettings fast_supervisor() {
  actors::SupervisorSettings settings;
  // Probe often, but wait long enough that a loaded machine never makes a live agent look silent.
  settings.probe_interval = std::chrono::milliseconds(50);
  settings.probe_timeout = std::chrono::milliseconds(150);
  settings.max_misses = 3;
  settings.cluster.pull_timeout = std::chrono::milliseconds(500);
  settings.cluster.retry_backoff = std::chrono::milliseconds(20);
  return settings;
}

/// A running cluster: agent, supervisor, and the supervisor's ClusterActor for it.
struct RunningCluster {
  DeterministicSystem harness;
  actors::SupervisorActor supervisor;
  actors::LocalAgentActor agent;

  explicit RunningCluster(uint64_t seed,
                          std::shared_ptr<adapters::ClusterAdapter> adapter = nullptr,
                          const actors::SupervisorSettings& settings = fast_supervisor()) {
    if (!adapter) {
      adapter = testing::simulated(seed, 5.0, 200.0);
    }
    supervisor = actors::spawn_supervisor(*harness.system, settings);
    agent = actors::spawn_agent_actor(*harness.system, adapter, seed, fast_agent());
    harness.ask<actors::ClusterActor>(supervisor, register_atom_v, std::string("sim"),
                                      actors::AgentActor{agent});
  }
  ~RunningCluster() {
    caf::anon_send_exit(agent, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(supervisor, caf::exit_reason::user_shutdown);
  }

  actors::ClusterActor cluster_actor() {
    return harness.ask<actors::ClusterActor>(supervisor, clusters_atom_v, std::string("sim"));
  }
  v1::ClusterSummary summary() {
    return harness.ask<v1::ClusterSummary>(supervisor, summary_atom_v, std::string("sim"));
  }
  /// The summary, or nullopt while the ClusterActor is being restarted.
  std::optional<v1::ClusterSummary> try_summary() {
    return harness.try_ask<v1::ClusterSummary>(supervisor, summary_atom_v, std::string("sim"));
  }

  /// Waits until the centre's view and the agent's published state are at one version, and
  /// checks they are the same.
  void expect_converged(const std::string& context) {
    bool compared = false;
    harness.run_until(
        [&] {
          v1::SnapshotRequest request;
          const auto truth =
              messages::to_proto(harness.ask<messages::AgentSnapshot>(agent, request));
          const auto view = harness.ask<v1::ClusterSnapshot>(cluster_actor(), view_atom_v);
          if (truth.epoch() != view.epoch() || truth.version() != view.agent_version()) {
            return false;
          }
          const auto expected = messages::from_proto(truth);
          const auto actual = messages::from_proto(view);
          BOOST_TEST_REQUIRE(expected.has_value());
          BOOST_TEST_REQUIRE(actual.has_value());
          model::ClusterView rebuilt;
          BOOST_TEST_REQUIRE(!rebuilt.replace(actual->nodes, actual->resources).has_value());
          testing::expect_view_matches(rebuilt, expected->nodes, context);
          BOOST_TEST((actual->resources == expected->resources), context);
          compared = true;
          return true;
        },
        context + ": centre and agent at one version");
    BOOST_TEST(compared);
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(metadata_actors)

BOOST_AUTO_TEST_CASE(views_converge_to_the_agents_state_under_churn) {
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    RunningCluster cluster(seed);
    cluster.harness.run_until([&] { return cluster.summary().updates_applied() >= 10; },
                              "ten updates applied");
    cluster.expect_converged("seed " + std::to_string(seed));
    BOOST_TEST(cluster.summary().healthy());
    BOOST_TEST(cluster.summary().rejected() == 0u);
  }
}

BOOST_AUTO_TEST_CASE(a_silent_agent_is_unhealthy_and_resynced_before_it_is_healthy_again) {
  RunningCluster cluster(4);
  cluster.harness.run_until([&] { return cluster.summary().healthy(); }, "healthy at first");
  caf::anon_send(cluster.agent, online_atom_v, false);
  cluster.harness.run_until([&] { return !cluster.summary().healthy(); }, "unhealthy after misses");
  const auto unhealthy = cluster.summary();
  BOOST_TEST(unhealthy.health_transitions() >= 2u);  // became healthy, then unhealthy
  caf::anon_send(cluster.agent, online_atom_v, true);
  cluster.harness.run_until([&] { return cluster.summary().healthy(); }, "healthy again");
  BOOST_TEST(cluster.summary().resyncs() > unhealthy.resyncs());  // resynced on the way back
  BOOST_TEST(cluster.summary().health_transitions() > unhealthy.health_transitions());
  cluster.expect_converged("after the partition");
}

BOOST_AUTO_TEST_CASE(a_killed_cluster_actor_is_restarted_and_rebuilt) {
  RunningCluster cluster(6);
  cluster.harness.run_until([&] { return cluster.summary().healthy(); }, "healthy at first");
  const actors::ClusterActor first = cluster.cluster_actor();
  caf::anon_send_exit(first, caf::exit_reason::kill);
  cluster.harness.run_until([&] { return cluster.cluster_actor() != first; }, "a new ClusterActor");
  cluster.harness.run_until(
      [&] {
        const auto summary = cluster.try_summary();
        return summary && summary->healthy() && summary->resyncs() >= 1 && summary->nodes() > 0;
      },
      "the new ClusterActor rebuilt and healthy");
  cluster.expect_converged("after the restart");
}

BOOST_AUTO_TEST_CASE(a_restarted_agent_registers_again_and_is_resynced) {
  // Declared before the harness, so it outlives every agent: the actor system waits for them.
  const auto adapter = testing::simulated(12, 5.0, 200.0);
  DeterministicSystem harness;
  const auto supervisor = actors::spawn_supervisor(*harness.system, fast_supervisor());
  const std::shared_ptr<adapters::ClusterAdapter> shared(adapter.get(), [](auto*) {});
  auto agent = actors::spawn_agent_actor(*harness.system, shared, 1, fast_agent());
  const auto cluster_actor = harness.ask<actors::ClusterActor>(
      supervisor, register_atom_v, std::string("sim"), actors::AgentActor{agent});
  const auto summary = [&] {
    return harness.try_ask<v1::ClusterSummary>(supervisor, summary_atom_v, std::string("sim"));
  };
  harness.run_until([&] { return summary() && summary()->healthy(); }, "healthy");
  // The same agent registering again (its answer lost on the way) is answered as before.
  const auto again = harness.try_ask<actors::ClusterActor>(
      supervisor, register_atom_v, std::string("sim"), actors::AgentActor{agent});
  BOOST_TEST((again && *again == cluster_actor));
  // A live cluster cannot be registered a second time.
  const actors::AgentActor impostor =
      actors::spawn_agent_actor(*harness.system, testing::simulated(99), 3, fast_agent());
  BOOST_TEST(
      !harness
           .try_ask<actors::ClusterActor>(supervisor, register_atom_v, std::string("sim"), impostor)
           .has_value());
  caf::anon_send_exit(impostor, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(agent, caf::exit_reason::kill);
  harness.run_until([&] { return !summary()->healthy(); }, "unhealthy once the agent died");
  // A lost one can: a new run of its agent registers again.
  agent = actors::spawn_agent_actor(*harness.system, shared, 2, fast_agent());
  harness.ask<actors::ClusterActor>(supervisor, register_atom_v, std::string("sim"),
                                    actors::AgentActor{agent});
  harness.run_until([&] { return summary()->healthy() && summary()->epoch() == 2u; },
                    "healthy again with the new run's epoch");
  BOOST_TEST(summary()->resyncs() >= 1u);
  caf::anon_send_exit(agent, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(supervisor, caf::exit_reason::user_shutdown);
}

BOOST_AUTO_TEST_CASE(a_relisted_cluster_reaches_the_centre_as_a_full_snapshot) {
  auto relisting = std::make_shared<testing::RelistingCluster>(testing::simulated(21, 5.0, 200.0));
  RunningCluster cluster(21, relisting);
  cluster.harness.run_until([&] { return cluster.summary().updates_applied() >= 5; },
                            "five updates applied");
  const auto before = cluster.summary();
  relisting->relist_next();
  cluster.harness.run_until([&] { return cluster.summary().resyncs() > before.resyncs(); },
                            "the relist taken as a full snapshot");
  BOOST_TEST(cluster.summary().resyncs() == before.resyncs() + 1);
  BOOST_TEST(cluster.summary().gaps() == before.gaps());  // pushed whole, not found by a gap
  BOOST_TEST(cluster.summary().rejected() == 0u);
  cluster.expect_converged("after the relist");
  // Then updates flow again from the snapshot's version.
  const auto after = cluster.summary();
  cluster.harness.run_until(
      [&] { return cluster.summary().updates_applied() >= after.updates_applied() + 3; },
      "updates after the snapshot");
  BOOST_TEST(cluster.summary().gaps() == before.gaps());
}

BOOST_AUTO_TEST_CASE(malformed_updates_are_rejected_with_a_reason) {
  RunningCluster cluster(7);
  cluster.harness.run_until([&] { return cluster.summary().updates_applied() >= 1; },
                            "first update");
  const actors::ClusterActor centre = cluster.cluster_actor();

  // Anyone but the cluster's agent is refused before the update is even read.
  v1::IncrementalUpdate stranger;
  stranger.set_cluster_id("sim");
  auto ack = cluster.harness.ask<v1::Ack>(centre, messages::read_update(stranger));
  BOOST_TEST(ack.status() == v1::Ack::REJECTED);
  BOOST_TEST(ack.error() == "sender: not the cluster's registered agent");

  // The rest is sent as the agent: a stand-in binds itself as the agent, then sends.
  const auto ask_as_agent = [&](const v1::IncrementalUpdate& update) {
    auto reply = std::make_shared<std::optional<v1::Ack>>();
    cluster.harness.system->spawn([=](caf::event_based_actor* self) {
      self->send(centre, bind_atom_v, caf::actor_cast<actors::AgentActor>(self));
      self->request(centre, caf::infinite, messages::read_update(update)).then([=](v1::Ack& ack) {
        *reply = ack;
      });
    });
    cluster.harness.run();
    BOOST_TEST_REQUIRE(reply->has_value());
    return **reply;
  };
  v1::IncrementalUpdate foreign;
  foreign.set_cluster_id("elsewhere");
  foreign.set_epoch(1);
  foreign.set_version(1);
  ack = ask_as_agent(foreign);
  BOOST_TEST(ack.status() == v1::Ack::REJECTED);
  BOOST_TEST(ack.error() == "update for cluster \"elsewhere\" sent to \"sim\"");

  v1::IncrementalUpdate bad_op;
  bad_op.set_cluster_id("sim");
  bad_op.set_epoch(7);
  bad_op.set_version(999);
  bad_op.set_base_version(998);
  bad_op.add_node_deltas()->set_op(static_cast<v1::NodeDelta::Op>(9));
  ack = ask_as_agent(bad_op);
  BOOST_TEST(ack.status() == v1::Ack::REJECTED);
  BOOST_TEST(ack.error() == "node_deltas[0].op: must be ADD, UPDATE, REMOVE or USAGE, got 9");

  const auto before = cluster.harness.ask<v1::ClusterSnapshot>(centre, view_atom_v);
  v1::IncrementalUpdate negative;
  negative.set_cluster_id("sim");
  negative.set_epoch(before.epoch());
  negative.set_base_version(before.version());
  negative.set_version(before.version() + 1);
  auto* delta = negative.add_node_deltas();
  delta->set_op(v1::NodeDelta::UPDATE);
  *delta->mutable_node() = before.nodes(0);
  delta->mutable_node()->set_allocated_cpu_milli(-1);
  // One node's impossible amount leaves that node out, not the update or the cluster.
  ack = ask_as_agent(negative);
  BOOST_TEST(ack.status() == v1::Ack::APPLIED, ack.error());
  const v1::ClusterSummary summary = cluster.summary();
  BOOST_TEST(summary.nodes_left_out() == 1u);
  BOOST_TEST(summary.nodes() + 1 == static_cast<uint64_t>(before.nodes_size()));
  BOOST_TEST(summary.rejected() >= 3u);
}

BOOST_AUTO_TEST_CASE(subscribers_receive_every_update_in_order) {
  RunningCluster cluster(8);
  // What the subscriber received, in order: the view when it subscribed, then each message.
  struct Feed {
    uint64_t start = 0;
    std::vector<std::shared_ptr<const model::ViewRevision>> updates;
    int snapshots = 0;
  };
  auto feed = std::make_shared<Feed>();
  const actors::ClusterActor centre = cluster.cluster_actor();
  const auto subscriber = cluster.harness.system->spawn(
      [=](actors::ViewSubscriberActor::pointer self) -> actors::ViewSubscriberActor::behavior_type {
        self->request(centre, caf::infinite, subscribe_atom_v,
                      caf::actor_cast<actors::ViewSubscriberActor>(self))
            .then([=](messages::ViewFeed& whole) { feed->start = whole.revision->revision; });
        return {
            [=](const messages::ViewFeed& update) {
              if (update.revision->whole) {
                ++feed->snapshots;
              } else {
                feed->updates.push_back(update.revision);
              }
            },
            [](atoms::health_atom, const std::string&, bool) {},
        };
      });
  cluster.harness.run_until([&] { return feed->updates.size() >= 5; }, "five updates");
  BOOST_TEST(feed->snapshots == 0);  // in step all along: no reason to start over
  uint64_t version = feed->start;
  for (const auto& update : feed->updates) {
    BOOST_TEST_REQUIRE(update != nullptr);
    BOOST_TEST(update->base_revision == version);
    version = update->revision;
  }
  caf::anon_send_exit(subscriber, caf::exit_reason::user_shutdown);
}

// A cluster of more nodes than one message carries: its snapshots travel in parts whether the
// agent pushes them (a relist), the ClusterActor pulls them (a resync) or a client asks.
BOOST_AUTO_TEST_CASE(a_large_clusters_snapshots_travel_in_parts) {
  model::ClusterResourceProfile profile = testing::small_profile();
  profile.spec.node_groups.front().count = 11'000;
  adapters::SimulationOptions options;
  options.seed = 31;
  auto relisting = std::make_shared<testing::RelistingCluster>(
      std::make_unique<adapters::SimulatedCluster>(profile, options));
  const uint64_t nodes = relisting->list_nodes().size();
  BOOST_TEST_REQUIRE(nodes > static_cast<uint64_t>(messages::kMaxNodesPerSnapshotPart));
  RunningCluster cluster(31, relisting);
  cluster.harness.run_until([&] { return cluster.summary().nodes() == nodes; }, "every node");
  const auto listed = cluster.summary();
  relisting->relist_next();
  cluster.harness.run_until([&] { return cluster.summary().resyncs() > listed.resyncs(); },
                            "the relist pushed in parts");
  caf::anon_send(cluster.cluster_actor(), resync_atom_v);
  cluster.harness.run_until([&] { return cluster.summary().resyncs() > listed.resyncs() + 1; },
                            "a resync pulled in parts");
  BOOST_TEST(cluster.summary().nodes() == nodes);
  BOOST_TEST(cluster.summary().rejected() == 0u);
  const auto source =
      cluster.harness.ask<v1::ClusterSnapshot>(cluster.supervisor, view_atom_v, std::string("sim"));
  BOOST_TEST(static_cast<uint64_t>(source.nodes_size()) == nodes);  // the whole, not a part
  BOOST_TEST(source.parts() == 0u);
}

// An agent that pushes faster than its cluster's limit is answered THROTTLED and sends the same
// updates again, in order, after the wait: nothing is lost and no gap forces a resync.
BOOST_AUTO_TEST_CASE(an_agent_over_its_update_rate_is_slowed_without_a_gap) {
  actors::SupervisorSettings settings = fast_supervisor();
  settings.cluster.update_limits = {20, 400};  // the agent pushes 50 updates/s of ~10 changes
  RunningCluster cluster(41, nullptr, settings);
  cluster.harness.run_until([&] { return cluster.summary().throttled() >= 10; },
                            "updates throttled");
  const auto throttled = cluster.summary();
  cluster.harness.run_until(
      [&] { return cluster.summary().updates_applied() >= throttled.updates_applied() + 20; },
      "updates applied after the waits");
  BOOST_TEST(cluster.summary().gaps() == 0u);
  BOOST_TEST(cluster.summary().resyncs() == 0u);
  BOOST_TEST(cluster.summary().rejected() == 0u);
  cluster.expect_converged("under the rate limit");
}

// An agent in another language pushes a large snapshot in parts through gRPC; the proxy keeps
// it and hands it to the ClusterActor's pull part by part.
BOOST_AUTO_TEST_CASE(the_grpc_proxy_collects_pushed_parts_and_answers_pulls_in_parts) {
  DeterministicSystem harness;
  const auto proxy = actors::spawn_grpc_agent_proxy(*harness.system, "big", {});
  v1::ClusterSnapshot whole;
  whole.set_cluster_id("big");
  whole.set_epoch(1);
  whole.set_version(4);
  for (int i = 0; i < 10'500; ++i) {
    whole.add_nodes()->set_name("n" + std::to_string(i));
  }
  const auto parts = messages::split_snapshot(whole);
  BOOST_TEST_REQUIRE(parts.size() == 2u);
  BOOST_TEST(harness.ask<v1::Ack>(proxy, push_atom_v, parts[0]).status() == v1::Ack::PART_TAKEN);
  const auto kept = harness.ask<v1::Ack>(proxy, push_atom_v, parts[1]);
  BOOST_TEST(kept.status() == v1::Ack::APPLIED);
  BOOST_TEST(kept.error() == "kept for the centre's next snapshot pull");
  messages::AgentSnapshotAssembler pulled;
  auto taken = pulled.add(harness.ask<messages::AgentSnapshot>(proxy, v1::SnapshotRequest{}));
  BOOST_TEST_REQUIRE((taken.has_value() && !taken.value().has_value()));
  taken = pulled.add(harness.ask<messages::AgentSnapshot>(proxy, pulled.next_request()));
  BOOST_TEST_REQUIRE((taken.has_value() && taken.value().has_value()));
  BOOST_TEST(taken.value()->nodes.size() == 10'500u);
  auto stray = parts[1];
  stray.set_version(9);
  BOOST_TEST(harness.ask<v1::Ack>(proxy, push_atom_v, stray).status() == v1::Ack::REJECTED);
  caf::anon_send_exit(proxy, caf::exit_reason::user_shutdown);
}

BOOST_AUTO_TEST_SUITE_END()
