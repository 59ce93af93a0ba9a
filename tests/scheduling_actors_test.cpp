// The scheduling plane with real actors: schedulers, ClusterActors, agents and the supervisor,
// run deterministically on a virtual clock (tests/deterministic_system.hpp).
#include <caf/event_based_actor.hpp>
#include <caf/send.hpp>

#include <boost/test/unit_test.hpp>

#include "tests/policy_fixtures.hpp"
#include "tests/scheduling_fleet.hpp"

using namespace unisched;
using namespace unisched::atoms;

namespace {

struct Fleet : testing::SchedulingFleet {
  Fleet(const std::vector<std::string>& ids, int scheduler_count, actors::CommitMode mode)
      : SchedulingFleet(ids, {scheduler_count, mode, false, {}}) {}

  v1::SchedulingDecision submit(const std::string& id, const std::string& spec,
                                size_t scheduler = 0) {
    return harness.ask<v1::SchedulingDecision>(schedulers.at(scheduler), submit_atom_v, id,
                                               testing::request(spec));
  }
  v1::ClusterSnapshot truth(const std::string& cluster) {
    return messages::to_proto(
        harness.ask<messages::AgentSnapshot>(agents.at(cluster), v1::SnapshotRequest{}));
  }
};

const char* kEightGpus =
    "  resources:\n    cpu: 1\n    accelerators:\n      - model: A100\n        count: 4\n"
    "        topology: NVLink\n";

}  // namespace

BOOST_AUTO_TEST_SUITE(scheduling_actors)

BOOST_AUTO_TEST_CASE(a_placement_reaches_the_cluster) {
  Fleet fleet({"c1"}, 1, actors::CommitMode::ClusterRevision);
  const auto decision = fleet.submit("train", kEightGpus);
  BOOST_TEST_REQUIRE(decision.status() == v1::SchedulingDecision::PLACED);
  BOOST_TEST_REQUIRE(decision.replicas_size() == 1);
  const std::string node = decision.replicas(0).node();
  fleet.harness.run_until(
      [&] {
        const auto truth = fleet.truth("c1");
        for (const auto& n : truth.nodes()) {
          if (n.name() == node) {
            return std::all_of(n.accelerators().begin(), n.accelerators().end(),
                               [](const auto& d) { return d.allocated_milli() == 1000; });
          }
        }
        return false;
      },
      "the agent carried the placement out");
}

BOOST_AUTO_TEST_CASE(gangs_are_all_or_nothing_across_clusters_and_say_why) {
  Fleet fleet({"c1", "c2"}, 1, actors::CommitMode::ClusterRevision);
  // Eight 4-GPU replicas fit across both clusters (4 nodes each), nine do not.
  const std::string gang =
      std::string("  replicas: 9\n") + kEightGpus + "  distribution:\n    gang: true\n";
  const auto refused = fleet.submit("too-big", gang);
  BOOST_TEST(refused.status() == v1::SchedulingDecision::UNSCHEDULABLE);
  BOOST_TEST(refused.replicas_size() == 0);
  BOOST_TEST_REQUIRE(refused.reasons_size() > 0);
  BOOST_TEST(refused.reasons(0).find("8 of 9 replicas fit") != std::string::npos,
             refused.reasons(0));
  const auto spanning = fleet.submit(
      "fits", std::string("  replicas: 8\n") + kEightGpus + "  distribution:\n    gang: true\n");
  BOOST_TEST_REQUIRE(spanning.status() == v1::SchedulingDecision::PLACED);
  std::set<std::string> clusters;
  for (const auto& replica : spanning.replicas()) {
    clusters.insert(replica.cluster());
  }
  BOOST_TEST(clusters.size() == 2u);  // one gang over two clusters
  const auto nothing_left = fleet.submit("one-more", kEightGpus);
  BOOST_TEST(nothing_left.status() == v1::SchedulingDecision::UNSCHEDULABLE);
  BOOST_TEST(nothing_left.reasons(0).find("resource-fit") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(no_placement_goes_to_an_unhealthy_cluster) {
  Fleet fleet({"c1", "c2"}, 1, actors::CommitMode::ClusterRevision);
  caf::anon_send(fleet.agents.at("c2"), online_atom_v, false);
  fleet.harness.run_until(
      [&] {
        return !fleet.harness
                    .ask<v1::ClusterSummary>(fleet.supervisor, summary_atom_v, std::string("c2"))
                    .healthy();
      },
      "c2 unhealthy");
  // c1 has room for four of the six: those go there, and none goes to c2.
  int placed = 0;
  for (int i = 0; i < 6; ++i) {
    const auto decision = fleet.submit("r" + std::to_string(i), kEightGpus);
    for (const auto& replica : decision.replicas()) {
      BOOST_TEST(replica.cluster() == "c1");
      ++placed;
    }
  }
  BOOST_TEST(placed == 4);
  const auto pinned = fleet.submit(
      "pinned", std::string(kEightGpus) + "  placement:\n    affinity:\n      clusters: [c2]\n");
  BOOST_TEST(pinned.status() == v1::SchedulingDecision::UNSCHEDULABLE);
  BOOST_TEST(pinned.reasons_size() > 0);
  bool named_health = false;
  for (const auto& reason : pinned.reasons()) {
    named_health |= reason == "c2: health: cluster is not healthy";
  }
  BOOST_TEST(named_health);
}

BOOST_AUTO_TEST_CASE(the_submitter_hears_when_a_refused_replica_is_placed_again) {
  Fleet fleet({"c1"}, 1, actors::CommitMode::ClusterRevision);
  // The submitter gets the decision as the answer, then every change to it as a message.
  auto heard = std::make_shared<std::vector<v1::SchedulingDecision>>();
  const auto scheduler = fleet.schedulers.at(0);
  const auto spec = testing::request("  resources:\n    cpu: 1\n    memory: 1Gi\n");
  const caf::actor submitter = fleet.harness.system->spawn([=](caf::event_based_actor* self) {
    self->request(scheduler, caf::infinite, submit_atom_v, std::string("web"), spec)
        .then([=](v1::SchedulingDecision& decision) { heard->push_back(decision); });
    return caf::behavior{[=](v1::SchedulingDecision& changed) { heard->push_back(changed); }};
  });
  fleet.harness.run();
  BOOST_TEST_REQUIRE(heard->size() == 1u);
  BOOST_TEST_REQUIRE(heard->at(0).replicas_size() == 1);
  const std::string first = heard->at(0).replicas(0).placement_id();
  // Its cluster refuses the placement after all (a kubelet's OutOfcpu, say).
  v1::RefusedPlacement refused;
  refused.set_id(first);
  refused.set_reason("OutOfcpu");
  caf::anon_send(scheduler, refused);
  // First that it is being placed again, then the changed decision.
  fleet.harness.run_until([&] { return heard->size() == 3u; }, "the changed decision");
  BOOST_TEST(heard->at(1).replacing() == 1u);
  BOOST_TEST(heard->at(2).replacing() == 0u);
  BOOST_TEST_REQUIRE(heard->at(2).replicas_size() == 1);
  BOOST_TEST(heard->at(2).replicas(0).placement_id() != first);
  BOOST_TEST(heard->at(2).replicas(0).node() != heard->at(0).replicas(0).node());
  caf::anon_send_exit(submitter, caf::exit_reason::user_shutdown);
}

BOOST_AUTO_TEST_CASE(racing_schedulers_conflict_retry_and_never_over_commit) {
  for (const auto mode : {actors::CommitMode::ClusterRevision, actors::CommitMode::NodeRevisions}) {
    Fleet fleet({"c1"}, 3, mode);
    const auto spec = testing::request("  resources:\n    cpu: 1\n    memory: 4Gi\n");
    constexpr int kRequests = 60;
    // One client submits them all at once, in turn to each scheduler, and counts the placed.
    auto placed = std::make_shared<int>(0);
    auto decided = std::make_shared<int>(0);
    const std::vector<actors::SchedulerActor> schedulers = fleet.schedulers;
    fleet.harness.system->spawn([=](caf::event_based_actor* self) {
      for (int i = 0; i < kRequests; ++i) {
        self->request(schedulers[static_cast<size_t>(i) % 3], caf::infinite, submit_atom_v,
                      "r" + std::to_string(i), spec)
            .then([=](v1::SchedulingDecision& d) {
              ++*decided;
              *placed += d.status() == v1::SchedulingDecision::PLACED ? 1 : 0;
            });
      }
    });
    fleet.harness.run_until([&] { return *decided == kRequests; }, "every request decided");
    uint64_t conflicts = 0;
    for (const auto& scheduler : fleet.schedulers) {
      conflicts += fleet.harness.ask<v1::SchedulerSummary>(scheduler, summary_atom_v).conflicts();
    }
    BOOST_TEST(*placed == kRequests);  // 60 cpu of the cluster's 224 cores: every one fits
    BOOST_TEST(conflicts > 0u);        // they did race, and compare-and-set caught it
    fleet.harness.run_until(
        [&] {
          int64_t used = 0;
          const auto truth = fleet.truth("c1");
          for (const auto& n : truth.nodes()) {
            BOOST_TEST_REQUIRE(n.allocated_cpu_milli() <= n.allocatable_cpu_milli());
            used += n.allocated_cpu_milli();
          }
          return used == kRequests * 1000;
        },
        "every placement carried out exactly once");
  }
}

BOOST_AUTO_TEST_SUITE_END()
