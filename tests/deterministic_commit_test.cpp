// Actors on CAF's deterministic test coordinator: nothing runs until the test says so, and time
// is virtual, so a test names which messages happen in which order. Here a commit's answer is
// dropped on purpose between the scheduler and the cluster that accepted it.
#include <boost/test/unit_test.hpp>

#include <caf/event_based_actor.hpp>
#include <caf/send.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/agent_actor.hpp"
#include "actors/cluster_actor.hpp"
#include "actors/scheduler_actor.hpp"
#include "adapters/simulated_cluster.hpp"
#include "messages/caf_types.hpp"
#include "tests/deterministic_system.hpp"
#include "tests/policy_fixtures.hpp"
#include "tests/simulation_fixtures.hpp"

using namespace unisched;
using namespace unisched::atoms;

namespace {

/// Stands between the scheduler and the ClusterActor: passes everything on, but swallows the
/// answer to the first `drops` commits (the cluster still gets and applies them). Untyped, it
/// is handed to the scheduler as the cluster's actor: it passes on only what the scheduler sends.
caf::behavior lossy_link(caf::event_based_actor* self, caf::actor cluster, int drops) {
  auto dropped = std::make_shared<int>(0);
  return {
      [=](subscribe_atom, actors::ViewSubscriberActor subscriber) {
        return self->delegate(cluster, subscribe_atom_v, std::move(subscriber));
      },
      [=](view_atom) { return self->delegate(cluster, view_atom_v); },
      [=](const v1::ReleaseOrder& release) { self->send(cluster, release); },
      [](const v1::SettledPlacements&) {},  // the cluster tells the committer: here, the link
      [=](const v1::CommitRequest& commit) -> caf::result<caf::message> {
        if (*dropped >= drops) {
          return self->delegate(cluster, commit);
        }
        ++*dropped;
        self->request(cluster, caf::infinite, commit).then([](v1::CommitReply&) {
          // The answer is lost on the way back.
        });
        return self->make_response_promise();  // never delivered
      },
  };
}

/// Answers the scheduler's question for the cluster's actor with the lossy link.
actors::ClusterDirectoryActor::behavior_type fake_supervisor(actors::ClusterDirectoryActor::pointer,
                                                             caf::actor link) {
  return {[=](clusters_atom, const std::string&) -> caf::result<actors::ClusterActor> {
    return caf::actor_cast<actors::ClusterActor>(link);
  }};
}

int64_t reserved_cpu(const v1::ClusterSnapshot& view) {
  int64_t total = 0;
  for (const auto& node : view.nodes()) {
    total += node.allocated_cpu_milli();
  }
  return total;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(deterministic_commit)

BOOST_AUTO_TEST_CASE(a_commit_whose_answer_is_lost_leaves_no_reservation_behind) {
  testing::DeterministicSystem fixture;
  caf::actor_system& system = *fixture.system;
  adapters::SimulationOptions quiet;
  quiet.membership_events_per_second = 0;
  quiet.pod_events_per_second = 0;
  const auto agent = actors::spawn_agent_actor(
      system, std::make_shared<adapters::SimulatedCluster>(testing::small_profile("a"), quiet), 1,
      {});
  const caf::actor owner =
      system.spawn([](caf::event_based_actor*) -> caf::behavior { return {[](int) {}}; });
  const actors::ClusterActor cluster = actors::spawn_cluster_actor(
      system, "a", agent, caf::actor_cast<caf::strong_actor_ptr>(owner), {});
  caf::anon_send(agent, bind_atom_v, actors::ClusterIngestActor{cluster}, std::string());
  caf::anon_send(cluster, health_atom_v, true);
  fixture.run();  // the agent's first listing reaches the cluster
  const int64_t before = reserved_cpu(*fixture.try_ask<v1::ClusterSnapshot>(cluster, view_atom_v));

  const caf::actor link = system.spawn(lossy_link, caf::actor_cast<caf::actor>(cluster), 1);
  const auto supervisor = system.spawn(fake_supervisor, link);
  std::string error;
  actors::SchedulerSettings settings;
  settings.draw_seed = 3;
  const auto scheduler = actors::spawn_scheduler_actor(
      system, supervisor, {{"a", "r1", "z1", model::MachineType::VirtualMachine, true}},
      *policy::Registry::builtin().preset("binpack", error), settings);
  fixture.run();  // subscribed

  auto decision = std::make_shared<std::optional<v1::SchedulingDecision>>();
  system.spawn([=](caf::event_based_actor* self) {
    self->request(scheduler, caf::infinite, submit_atom_v, std::string("web"),
                  testing::request("  resources:\n    cpu: \"2\"\n    memory: 1Gi\n"))
        .then([=](v1::SchedulingDecision& answer) { *decision = std::move(answer); });
  });
  fixture.run();
  // The cluster accepted the commit and holds the reservation; the scheduler heard nothing.
  BOOST_TEST(!decision->has_value());
  BOOST_TEST(reserved_cpu(*fixture.try_ask<v1::ClusterSnapshot>(cluster, view_atom_v)) ==
             before + 2000);

  // The commit times out: the scheduler releases it at the cluster and decides again.
  BOOST_TEST_REQUIRE(fixture.coordinator->trigger_timeouts() > 0u);
  fixture.run();
  BOOST_TEST_REQUIRE(decision->has_value());
  BOOST_TEST((*decision)->status() == v1::SchedulingDecision::PLACED);
  BOOST_TEST_REQUIRE((*decision)->replicas_size() == 1);
  BOOST_TEST((*decision)->replicas(0).placement_id() == "web/1");
  // The agent had carried web/0 out before the release reached it; the release told it to undo
  // that too. Once it has observed and pushed (two virtual intervals), one replica is held, not
  // two: the first placement did not outlive its commit.
  for (int interval = 0; interval < 2; ++interval) {
    fixture.coordinator->trigger_timeouts();
    fixture.run();
  }
  BOOST_TEST(reserved_cpu(*fixture.try_ask<v1::ClusterSnapshot>(cluster, view_atom_v)) ==
             before + 2000);
  const auto summary = fixture.try_ask<v1::SchedulerSummary>(scheduler, summary_atom_v);
  BOOST_TEST(summary->commits_timed_out() == 1u);
  BOOST_TEST(summary->commits() == 1u);
  caf::anon_send_exit(scheduler, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(supervisor, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(cluster, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(agent, caf::exit_reason::user_shutdown);
  for (const caf::actor& actor : {link, owner}) {
    caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
  }
  fixture.run();
}

BOOST_AUTO_TEST_SUITE_END()
