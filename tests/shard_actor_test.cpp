// The shard's entry actor: it starts ClusterActors only for the supervisor it was bound to, and
// takes them down when it stops.
#include <boost/test/unit_test.hpp>

#include <caf/event_based_actor.hpp>
#include <caf/send.hpp>

#include "actors/shard_actor.hpp"
#include "tests/deterministic_system.hpp"

using namespace unisched;
using namespace unisched::atoms;
using unisched::testing::DeterministicSystem;

namespace {

/// An actor that ignores everything: a stand-in agent that never answers a pull.
caf::behavior silent() {
  return {[](const v1::SnapshotRequest&) {}};
}

/// What a shard client last heard, and how many hosted ClusterActors it saw stop.
struct ShardAnswers {
  std::optional<actors::ClusterActor> started;
  std::string refusal;
  int stopped = 0;
};

/// Talks to the shard as itself (the shard judges the sender): on (bind) it binds the shard to
/// itself, on (spawn, id) it asks the shard to host cluster `id` and watches what starts.
caf::behavior shard_client(caf::event_based_actor* self, actors::ShardActor shard,
                           actors::AgentActor agent, std::shared_ptr<ShardAnswers> answers) {
  self->set_down_handler([=](caf::down_msg&) { ++answers->stopped; });
  return {
      [=](bind_atom) { self->send(shard, bind_atom_v); },
      [=](spawn_atom, const std::string& id) {
        answers->started.reset();
        answers->refusal.clear();
        self->request(shard, caf::infinite, spawn_atom_v, id, agent,
                      caf::actor_cast<caf::strong_actor_ptr>(self))
            .then(
                [=](actors::ClusterActor& hosted) {
                  self->monitor(hosted);
                  answers->started = hosted;
                },
                [=](caf::error& error) { answers->refusal = to_string(error); });
      },
  };
}

}  // namespace

BOOST_AUTO_TEST_SUITE(shard_actor)

BOOST_AUTO_TEST_CASE(only_the_bound_supervisor_may_start_cluster_actors) {
  DeterministicSystem harness;
  const actors::ShardActor shard = actors::spawn_shard_actor(*harness.system, {});
  // A stand-in agent that never answers: the ClusterActor only needs someone to pull from.
  const caf::actor silent_agent = harness.system->spawn(silent);
  const auto agent = caf::actor_cast<actors::AgentActor>(silent_agent);
  auto heard = std::make_shared<ShardAnswers>();
  auto stranger_heard = std::make_shared<ShardAnswers>();
  const caf::actor supervisor = harness.system->spawn(shard_client, shard, agent, heard);
  const caf::actor stranger = harness.system->spawn(shard_client, shard, agent, stranger_heard);
  const auto spawn_as = [&](const caf::actor& who, const std::string& id) {
    caf::anon_send(who, spawn_atom_v, id);
    harness.run();
  };
  // Not bound yet: nobody may.
  spawn_as(supervisor, "c1");
  BOOST_TEST(heard->refusal.find("only the supervisor") != std::string::npos, heard->refusal);

  caf::anon_send(supervisor, bind_atom_v);
  spawn_as(stranger, "c1");
  BOOST_TEST(!stranger_heard->started.has_value());
  BOOST_TEST(stranger_heard->refusal.find("only the supervisor") != std::string::npos,
             stranger_heard->refusal);
  spawn_as(supervisor, "");
  BOOST_TEST(heard->refusal.find("needs a cluster id") != std::string::npos, heard->refusal);

  spawn_as(supervisor, "c1");
  BOOST_TEST_REQUIRE(heard->started.has_value());
  const auto summary = harness.ask<v1::ClusterSummary>(*heard->started, summary_atom_v);
  BOOST_TEST(summary.cluster_id() == "c1");

  // Stopping the shard stops what it hosts.
  BOOST_TEST(heard->stopped == 0);
  caf::anon_send_exit(shard, caf::exit_reason::user_shutdown);
  harness.run();
  BOOST_TEST(heard->stopped == 1);
  for (const caf::actor& actor : {supervisor, stranger, silent_agent}) {
    caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
  }
}

BOOST_AUTO_TEST_SUITE_END()
