// Decided requests no scheduler follows any more: the hub asks their clusters what became of
// their placements and gives up those whose orders never arrived. The ClusterActor's side (what
// it knows of a placement, also after it or its agent restarted) and the hub's (Reconciliation),
// without actors.
#include <boost/test/unit_test.hpp>
#include <memory>

#include "cores/agent_core.hpp"
#include "cores/cluster_core.hpp"
#include "runtime/reconciliation.hpp"
#include "runtime/request_book.hpp"
#include "tests/commit_fixtures.hpp"

using namespace unisched;
using actors::ClusterCore;
using runtime::Reconciliation;
using testing::accepted_commit;
using testing::Pair;
using testing::reservation;
using State = ClusterCore::PlacementState;

namespace {

/// A request placed with one replica on each of these clusters ("<id>/<n>" on clusters[n]).
v1::RequestStatus placed(const std::string& id, const std::vector<std::string>& clusters) {
  v1::RequestStatus status;
  status.set_request_id(id);
  status.set_phase(v1::RequestStatus::PLACED);
  status.mutable_decision()->set_request_id(id);
  status.mutable_decision()->set_status(v1::SchedulingDecision::PLACED);
  for (size_t n = 0; n < clusters.size(); ++n) {
    auto* replica = status.mutable_decision()->add_replicas();
    replica->set_placement_id(id + "/" + std::to_string(n));
    replica->set_cluster(clusters[n]);
    replica->set_node("node-0");
  }
  return status;
}

v1::PlacementReport report(std::vector<v1::PlacementReport::State> states, bool synced = true) {
  v1::PlacementReport out;
  out.set_synced(synced);
  for (const auto state : states) {
    out.add_states(state);
  }
  return out;
}

/// A book holding one-replica requests r1..rN ("rN/0" requested), each as `decide` leaves it.
runtime::RequestBook book_of(int requests) {
  runtime::RequestBook book;
  std::string manifest;
  for (int n = 1; n <= requests; ++n) {
    manifest +=
        "---\napiVersion: scheduling.cluster.io/v1\nkind: SchedulingRequest\nmetadata:\n"
        "  name: r" +
        std::to_string(n) +
        "\nspec:\n  replicas: 1\n  resources:\n    cpu: \"1\"\n    memory: 1Gi\n";
  }
  v1::ManifestSubmission submission;
  submission.set_source("requests.yaml");
  submission.set_manifest(manifest);
  std::vector<runtime::RequestBook::ToSchedule> work;
  runtime::RequestBook::Declarations declared;
  const auto reply = book.submit(submission, work, declared);
  BOOST_TEST_REQUIRE(reply.accepted_size() == requests, reply.DebugString());
  return book;
}

/// A ClusterActor started afresh beside the agent: it knows only what the agent's snapshot says.
ClusterCore restarted(actors::AgentCore& agent) {
  ClusterCore centre{"sim"};
  BOOST_TEST_REQUIRE(centre.request_resync().pull_snapshot);
  BOOST_TEST_REQUIRE(!centre.synced());
  BOOST_TEST_REQUIRE(!centre.on_snapshot(agent.snapshot()).problem.has_value());
  return centre;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(reconciliation)

BOOST_AUTO_TEST_CASE(a_cluster_actor_tells_what_became_of_each_placement) {
  Pair pair;
  BOOST_TEST(pair.centre.synced());
  const auto held = accepted_commit(pair, {reservation("r1/0", "sim-gpu-0", 1000, {0})});
  BOOST_TEST((pair.centre.placement_state("r1/0") == State::Pending));
  pair.carry_out(held);
  BOOST_TEST((pair.centre.placement_state("r1/0") == State::Running));
  pair.carry_out(accepted_commit(pair, {reservation("r2/0", "sim-gpu-1", 1000, {0})}));
  pair.agent.finish({"r2/0"});
  pair.sync();
  BOOST_TEST((pair.centre.placement_state("r2/0") == State::Ended));
  // Ordered, but the agent refuses it: the request was given up there.
  pair.agent.release_requests({"r3"});
  pair.carry_out(accepted_commit(pair, {reservation("r3/0", "sim-cpu-0", 500)}));
  BOOST_TEST((pair.centre.placement_state("r3/0") == State::Refused));
  BOOST_TEST((pair.centre.placement_state("r9/0") == State::Unknown));
}

BOOST_AUTO_TEST_CASE(a_restarted_cluster_actor_knows_what_runs_but_not_what_its_predecessor_held) {
  Pair pair;
  pair.carry_out(accepted_commit(pair, {reservation("r1/0", "sim-gpu-0", 1000, {0})}));
  accepted_commit(pair, {reservation("r2/0", "sim-gpu-1", 1000, {0})});  // order never sent
  ClusterCore after = restarted(pair.agent);
  BOOST_TEST(after.synced());
  BOOST_TEST((after.placement_state("r1/0") == State::Running));
  BOOST_TEST((after.placement_state("r2/0") == State::Unknown));
}

BOOST_AUTO_TEST_CASE(a_restarted_agent_lists_what_its_earlier_run_carried_out) {
  std::shared_ptr<adapters::ClusterAdapter> cluster = testing::simulated(1, 0.0, 0.0);
  actors::AgentCore before(cluster, 1);
  before.observe();
  before.carry_out({reservation("r5/0", "sim-gpu-0", 1000, {0})});
  actors::AgentCore after(cluster, 2);
  after.observe();
  while (after.next_update()) {
  }
  const model::ViewSnapshot snapshot = after.snapshot();
  BOOST_TEST(snapshot.applied_placements == std::vector<std::string>{"r5/0"});
  BOOST_TEST((restarted(after).placement_state("r5/0") == State::Running));
}

BOOST_AUTO_TEST_CASE(placements_that_run_or_ended_are_no_longer_followed) {
  Reconciliation hub;
  v1::RequestStatus status = placed("r1", {"a", "b", "a"});
  status.add_finished("r1/2");  // ended already: not asked about
  hub.follow(status);
  auto questions = hub.questions();
  BOOST_TEST(questions["a"] == std::vector<std::string>{"r1/0"});
  BOOST_TEST(questions["b"] == std::vector<std::string>{"r1/1"});
  BOOST_TEST(hub.on_report("a", {"r1/0"}, report({v1::PlacementReport::RUNNING})).give_up.empty());
  BOOST_TEST(hub.on_report("b", {"r1/1"}, report({v1::PlacementReport::PENDING})).give_up.empty());
  BOOST_TEST(!hub.idle());
  const auto ended = hub.on_report("b", {"r1/1"}, report({v1::PlacementReport::ENDED}));
  BOOST_TEST(ended.give_up.empty());
  BOOST_TEST(ended.ended == std::vector<std::string>{"r1/1"});  // recorded as finished
  BOOST_TEST(hub.idle());
  BOOST_TEST(hub.followed_requests() == 0u);
}

BOOST_AUTO_TEST_CASE(a_placement_unknown_time_after_time_gives_its_request_up) {
  Reconciliation hub;
  hub.follow(placed("r1", {"a"}));
  hub.follow(placed("r2", {"a"}));
  const std::vector<std::string> asked{"r1/0", "r2/0"};
  const auto unknown = v1::PlacementReport::UNKNOWN;
  for (int i = 1; i < Reconciliation::kUnknownLimit; ++i) {
    BOOST_TEST(hub.on_report("a", asked, report({unknown, unknown})).give_up.empty());
    // A cluster whose view is not in step with its agent says nothing.
    BOOST_TEST(hub.on_report("a", asked, report({unknown, unknown}, false)).give_up.empty());
  }
  // r1/0 reaches the limit; pending resets r2/0's count: its ClusterActor still sends the order.
  const auto first =
      hub.on_report("a", asked, report({unknown, v1::PlacementReport::PENDING})).give_up;
  BOOST_TEST_REQUIRE(first.size() == 1u);
  BOOST_TEST(first[0].request_id == "r1");
  BOOST_TEST(hub.followed_requests() == 1u);
  for (int i = 1; i < Reconciliation::kUnknownLimit; ++i) {
    BOOST_TEST(hub.on_report("a", asked, report({unknown, unknown})).give_up.empty());
  }
  const auto later = hub.on_report("a", {"r2/0"}, report({unknown})).give_up;
  BOOST_TEST_REQUIRE(later.size() == 1u);
  BOOST_TEST(later[0].request_id == "r2");
  BOOST_TEST(later[0].reason.find("cluster a never received the order for its placement r2/0") ==
             0u);
  BOOST_TEST(hub.idle());
}

BOOST_AUTO_TEST_CASE(a_report_shorter_than_the_question_or_about_another_cluster_changes_nothing) {
  Reconciliation hub;
  hub.follow(placed("r1", {"a"}));
  hub.follow(placed("r2", {"a"}));
  const auto unknown = v1::PlacementReport::UNKNOWN;
  for (int i = 0; i < 2 * Reconciliation::kUnknownLimit; ++i) {
    // One state for two placements: r2/0 goes unanswered, not unknown.
    BOOST_TEST(hub.on_report("a", {"r1/0", "r2/0"}, report({v1::PlacementReport::PENDING}))
                   .give_up.empty());
    // A cluster that does not hold the placement has no say about it.
    BOOST_TEST(hub.on_report("b", {"r1/0", "r2/0"}, report({unknown, unknown})).give_up.empty());
  }
  BOOST_TEST(hub.followed_requests() == 2u);
}

BOOST_AUTO_TEST_CASE(a_refused_placement_gives_its_request_up_at_once) {
  Reconciliation hub;
  hub.follow(placed("r1", {"a", "b"}));
  const auto given_up =
      hub.on_report("b", {"r1/1"}, report({v1::PlacementReport::REFUSED})).give_up;
  BOOST_TEST_REQUIRE(given_up.size() == 1u);
  BOOST_TEST(given_up[0].reason.find("cluster b refused its placement r1/1") == 0u);
  BOOST_TEST(hub.idle());  // its other placement is no longer asked about either
  // An answer that arrives after the request was given up changes nothing.
  BOOST_TEST(hub.on_report("a", {"r1/0"}, report({v1::PlacementReport::UNKNOWN})).give_up.empty());
}

BOOST_AUTO_TEST_CASE(what_a_stopped_scheduler_decided_is_followed_until_it_ends) {
  Reconciliation hub;
  hub.decided(placed("r1", {"a"}), 7);
  hub.decided(placed("r2", {"a"}), 8);
  v1::RequestStatus unschedulable = placed("r3", {});
  unschedulable.set_phase(v1::RequestStatus::UNSCHEDULABLE);
  hub.decided(unschedulable, 7);
  hub.decided(placed("r4", {"a"}), 7);
  hub.forget("r4");  // finished
  BOOST_TEST(hub.scheduler_stopped(7) == std::vector<std::string>{"r1"});
  BOOST_TEST(hub.scheduler_stopped(7).empty());
  BOOST_TEST(hub.idle());  // the hub follows what the stopped scheduler decided, not this
}

BOOST_AUTO_TEST_CASE(placements_no_decision_holds_are_strays_unless_a_scheduler_decides) {
  runtime::RequestBook book = book_of(6);
  const auto decide = [&](const v1::RequestStatus& status) {
    BOOST_TEST_REQUIRE(book.decide(status.decision()));
  };
  decide(placed("r1", {"a"}));  // r1/0 on a
  decide(placed("r2", {"b"}));  // r2/0 on b, not a
  v1::RequestStatus unschedulable = placed("r3", {});
  unschedulable.mutable_decision()->set_status(v1::SchedulingDecision::UNSCHEDULABLE);
  decide(unschedulable);
  decide(placed("r4", {"a"}));
  BOOST_TEST_REQUIRE(book.retry({"r4"}, "its scheduler stopped").size() == 1u);  // now r4~1
  // r5 is still PENDING; r6 is being decided (placed again) by a scheduler.
  decide(placed("r6", {"b"}));
  const std::vector<std::string> held{"r1/0",   "r1/7", "r2/0",   "r3/0", "r4/0",
                                      "r4~1/0", "r5/0", "r5~2/0", "r6/3", "unknown/0"};
  const auto strays = runtime::find_strays(
      "a", held, book, [](const std::string& request) { return request == "r6"; });
  // r4/0 and r5~2/0 belong to attempts that are not their request's current one.
  BOOST_TEST(strays == (std::vector<std::string>{"r1/7", "r2/0", "r3/0", "r4/0", "r5~2/0"}));
}

BOOST_AUTO_TEST_SUITE_END()
