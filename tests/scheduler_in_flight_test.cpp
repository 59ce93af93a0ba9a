// Several decisions of one scheduler in flight at once (SchedulerSettings::max_in_flight): each
// leaves alone the nodes the others' commits touch, so they never conflict with each other; a
// decision that needs such a node waits for its answer instead of failing; with cluster-level
// checks one decision is in flight, whatever the setting.
#include <boost/test/unit_test.hpp>

#include <set>

#include "tests/policy_fixtures.hpp"
#include "tests/scheduler_bench.hpp"

using namespace unisched;
using actors::CommitResult;
using actors::SchedulerCommands;
using actors::SchedulerSettings;
using Decision = actors::RequestDecision;
using testing::Bench;
using testing::only_round;

namespace {

const model::SchedulingRequestSpec kOneCpu =
    testing::request("  replicas: 1\n  resources:\n    cpu: \"1\"\n    memory: 1Gi\n");

SchedulerSettings in_flight(size_t decisions, actors::CommitMode mode) {
  SchedulerSettings settings;
  settings.commit_mode = mode;
  settings.max_in_flight = decisions;
  return settings;
}

/// Answers the round's commit as its cluster does, after the cluster's view reached the
/// scheduler (a ClusterActor sends its feed before its answer).
SchedulerCommands answer(Bench& bench, const actors::RoundMessages& round) {
  BOOST_TEST_REQUIRE(round.commits.size() == 1u);
  const auto& commit = round.commits.front();
  const auto [result, reason] = bench.answer(commit);
  bench.scheduler.views().replace(*bench.clusters.at(commit.cluster_id).published().whole());
  return bench.scheduler.on_commit_result(round.round, commit.cluster_id, result, reason,
                                          bench.now);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(scheduler_in_flight)

BOOST_AUTO_TEST_CASE(decisions_in_flight_together_take_nodes_apart_and_never_conflict) {
  Bench bench(in_flight(3, actors::CommitMode::NodeRevisions));
  bench.add("a", {testing::node("n1", 8000, 32), testing::node("n2", 8000, 32),
                  testing::node("n3", 8000, 32)});
  std::vector<actors::RoundMessages> rounds;
  std::set<std::string> nodes;
  for (const char* id : {"r1", "r2", "r3"}) {
    SchedulerCommands started = bench.scheduler.submit(id, kOneCpu, 1, bench.now);
    const actors::RoundMessages& round = only_round(started);
    BOOST_TEST_REQUIRE(round.commits.size() == 1u);
    BOOST_TEST((round.commits[0].mode == actors::CommitMode::NodeRevisions));
    nodes.insert(round.commits[0].commit.reservations[0].node);
    rounds.push_back(round);
  }
  BOOST_TEST(bench.scheduler.deciding() == 3u);
  BOOST_TEST(nodes.size() == 3u);  // each left the others' nodes alone
  // A fourth waits for a free place among those in flight.
  BOOST_TEST(bench.scheduler.submit("r4", kOneCpu, 1, bench.now).rounds.empty());
  BOOST_TEST(bench.scheduler.waiting() == 1u);
  size_t placed = 0;
  for (auto round = rounds.rbegin(); round != rounds.rend(); ++round) {  // answers out of order
    const SchedulerCommands done = answer(bench, *round);
    BOOST_TEST_REQUIRE(done.replies.size() == 1u);
    placed += done.replies[0].second.status == Decision::Status::Placed ? 1 : 0;
  }
  BOOST_TEST(placed == 3u);
  BOOST_TEST(bench.scheduler.counts(bench.now).conflicts == 0u);
  BOOST_TEST(bench.reservations() == 3u);
}

BOOST_AUTO_TEST_CASE(a_decision_that_needs_a_node_in_flight_waits_for_its_answer) {
  Bench bench(in_flight(2, actors::CommitMode::NodeRevisions));
  bench.add("a", {testing::node("n1", 2000, 32)});  // room for two, one node
  SchedulerCommands first = bench.scheduler.submit("r1", kOneCpu, 1, bench.now);
  const actors::RoundMessages round = only_round(first);
  // The only node is in flight: the second is not found unschedulable, it waits.
  const SchedulerCommands second = bench.scheduler.submit("r2", kOneCpu, 2, bench.now);
  BOOST_TEST(second.rounds.empty());
  BOOST_TEST(second.replies.empty());
  BOOST_TEST(bench.scheduler.waiting() == 1u);
  const SchedulerCommands answered = answer(bench, round);
  BOOST_TEST_REQUIRE(answered.replies.size() == 1u);
  BOOST_TEST(answered.advance_later);
  // Decided on the view that holds the first reservation: the same node, and no conflict.
  const SchedulerCommands done = bench.run(bench.scheduler.advance(bench.now));
  BOOST_TEST_REQUIRE(done.replies.size() == 1u);
  BOOST_TEST(done.replies[0].first == 2u);
  BOOST_TEST((done.replies[0].second.status == Decision::Status::Placed));
  BOOST_TEST(done.replies[0].second.attempts == 1u);
  BOOST_TEST(bench.scheduler.counts(bench.now).conflicts == 0u);
  BOOST_TEST(bench.reservations() == 2u);
}

BOOST_AUTO_TEST_CASE(with_cluster_level_checks_one_decision_is_in_flight) {
  Bench bench(in_flight(3, actors::CommitMode::ClusterRevision));
  bench.add("a", {testing::node("n1", 8000, 32), testing::node("n2", 8000, 32)});
  SchedulerCommands first = bench.scheduler.submit("r1", kOneCpu, 1, bench.now);
  BOOST_TEST((only_round(first).commits[0].mode == actors::CommitMode::ClusterRevision));
  BOOST_TEST(bench.scheduler.submit("r2", kOneCpu, 2, bench.now).rounds.empty());
  BOOST_TEST(bench.scheduler.deciding() == 1u);
  BOOST_TEST(bench.scheduler.waiting() == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
