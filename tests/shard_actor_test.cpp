// The shard's entry actor: it starts ClusterActors only for the supervisor it was bound to, and
// takes them down when it stops.
#include <boost/test/unit_test.hpp>

#include <caf/event_based_actor.hpp>

#include "actors/shard_actor.hpp"
#include "tests/actor_harness.hpp"

using namespace unisched;
using namespace unisched::atoms;
using unisched::testing::ActorHarness;

namespace {

/// An actor that ignores everything: a stand-in agent that never answers a pull.
caf::behavior silent() {
  return {[](const v1::SnapshotRequest&) {}};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(shard_actor)

BOOST_AUTO_TEST_CASE(only_the_bound_supervisor_may_start_cluster_actors) {
  ActorHarness harness;
  const actors::ShardActor shard = actors::spawn_shard_actor(*harness.system, {});
  // A stand-in agent that never answers: the ClusterActor only needs someone to pull from.
  const auto agent = caf::actor_cast<actors::AgentActor>(harness.system->spawn(silent));
  caf::scoped_actor supervisor{*harness.system};
  const auto spawn_as = [&](caf::scoped_actor& who, const std::string& id) {
    std::optional<actors::ClusterActor> started;
    std::string refusal;
    who->request(shard, std::chrono::seconds(5), spawn_atom_v, id, agent,
                 caf::actor_cast<caf::strong_actor_ptr>(supervisor))
        .receive([&](actors::ClusterActor& actor) { started = actor; },
                 [&](caf::error& error) { refusal = to_string(error); });
    return std::make_pair(started, refusal);
  };
  // Not bound yet: nobody may.
  BOOST_TEST(spawn_as(supervisor, "c1").second.find("only the supervisor") != std::string::npos);

  supervisor->send(shard, bind_atom_v);
  caf::scoped_actor stranger{*harness.system};
  const auto refused = spawn_as(stranger, "c1");
  BOOST_TEST(!refused.first.has_value());
  BOOST_TEST(refused.second.find("only the supervisor") != std::string::npos, refused.second);
  BOOST_TEST(spawn_as(supervisor, "").second.find("needs a cluster id") != std::string::npos);

  const auto started = spawn_as(supervisor, "c1");
  BOOST_REQUIRE(started.first.has_value());
  const auto summary = harness.ask<v1::ClusterSummary>(*started.first, summary_atom_v);
  BOOST_TEST(summary.cluster_id() == "c1");

  // Stopping the shard stops what it hosts.
  supervisor->monitor(*started.first);
  caf::anon_send_exit(shard, caf::exit_reason::user_shutdown);
  bool down = false;
  supervisor->receive([&](caf::down_msg&) { down = true; },
                      caf::after(std::chrono::seconds(5)) >> [] {});
  BOOST_TEST(down);
  caf::anon_send_exit(agent, caf::exit_reason::user_shutdown);
}

BOOST_AUTO_TEST_SUITE_END()
