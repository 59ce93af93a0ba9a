// What travels between an agent and its ClusterActor may be lost, repeated or overtaken (found
// by `unisched simulate`): orders and releases are sent again until the agent confirms them, the
// agent carries each placement out once, and what ended is told again in snapshots.
#include <boost/test/unit_test.hpp>

#include <map>

#include "tests/commit_fixtures.hpp"

using namespace unisched;
using actors::CommitMode;
using actors::CommitStatus;
using testing::accepted_commit;
using testing::Pair;
using testing::reservation;

BOOST_AUTO_TEST_SUITE(lossy_link)

BOOST_AUTO_TEST_CASE(an_order_the_agent_never_confirms_is_sent_again_until_it_does) {
  Pair pair;
  const auto commit = accepted_commit(pair, {reservation("job/0", "sim-gpu-0", 1000)});
  // The order is lost: one period is not yet reason to resend, two are.
  BOOST_TEST(pair.centre.on_resend_period().orders.empty());
  const auto resend = pair.centre.on_resend_period();
  BOOST_TEST_REQUIRE(resend.orders.size() == 1u);
  BOOST_TEST(resend.orders.front().id == "job/0");
  pair.carry_out(commit);  // the resent order arrives and is confirmed
  BOOST_TEST(pair.centre.reservations() == 0u);
  BOOST_TEST(pair.centre.on_resend_period().orders.empty());
}

BOOST_AUTO_TEST_CASE(unconfirmed_orders_are_sent_again_and_listed_in_placement_id_order) {
  // The centre holds its reservations and running placements hashed; what it sends again and
  // lists must not follow the hash.
  Pair pair;
  std::map<std::string, actors::Commit> commits;
  for (const char* id : {"job-c/0", "job-a/1", "job-b/0", "job-a/0", "job-e/0", "job-d/0"}) {
    commits.emplace(id, accepted_commit(pair, {reservation(id, "sim-gpu-0", 100)}));
  }
  pair.carry_out(commits.at("job-e/0"));
  pair.carry_out(commits.at("job-d/0"));
  BOOST_TEST(pair.centre.on_resend_period().orders.empty());
  std::vector<std::string> resent;
  for (const model::Reservation& order : pair.centre.on_resend_period().orders) {
    resent.push_back(order.id);
  }
  BOOST_TEST((resent == std::vector<std::string>{"job-a/0", "job-a/1", "job-b/0", "job-c/0"}));
  // Running first, then held; each in id order.
  BOOST_TEST(
      (pair.centre.held_placements() ==
       std::vector<std::string>{"job-d/0", "job-e/0", "job-a/0", "job-a/1", "job-b/0", "job-c/0"}));
}

BOOST_AUTO_TEST_CASE(an_order_carried_out_twice_runs_once) {
  Pair pair;
  const auto commit = accepted_commit(pair, {reservation("job/0", "sim-gpu-0", 1000)});
  pair.agent.carry_out(commit.reservations);
  pair.agent.carry_out(commit.reservations);  // duplicated on the way
  pair.agent.observe();
  const auto update = pair.agent.next_update();
  BOOST_TEST_REQUIRE(update.has_value());
  BOOST_TEST(update->applied_placements == std::vector<std::string>{"job/0"});
  BOOST_TEST(update->refused_placements.empty());
  BOOST_TEST(pair.agent.counters().placements_applied == 1u);
}

BOOST_AUTO_TEST_CASE(a_lost_release_is_sent_again_and_a_late_order_after_it_is_ignored) {
  Pair pair;
  pair.centre.release({"job/0"});  // the scheduler gave up on it; its order may be on the way
  BOOST_TEST(pair.centre.on_resend_period().releases.empty());
  BOOST_TEST((pair.centre.on_resend_period().releases == std::vector<std::string>{"job/0"}));
  pair.agent.finish({"job/0"});  // the resent release arrives: never run here, told as ended
  pair.agent.carry_out({reservation("job/0", "sim-gpu-0", 1000)});  // the late order
  pair.sync();
  BOOST_TEST(pair.agent.counters().placements_applied == 0u);
  BOOST_TEST(pair.centre.on_resend_period().releases.empty());  // confirmed
  BOOST_TEST((pair.agent.snapshot().finished_placements == std::vector<std::string>{"job/0"}));
}

BOOST_AUTO_TEST_CASE(a_placement_whose_applied_report_was_lost_settles_when_it_finishes) {
  Pair pair;
  const auto commit = accepted_commit(pair, {reservation("job/0", "sim-gpu-0", 1000)});
  pair.agent.carry_out(commit.reservations);
  pair.agent.observe();
  BOOST_TEST_REQUIRE(pair.agent.next_update().has_value());  // lost: the centre never sees it
  pair.agent.finish({"job/0"});
  pair.agent.observe();
  const auto later = pair.agent.next_update();
  BOOST_TEST_REQUIRE(later.has_value());
  // A gap: the centre resyncs from the snapshot, which tells the work ended.
  const auto gap = pair.centre.on_update(*later);
  BOOST_TEST((gap.status == actors::AckStatus::Gap));
  BOOST_TEST_REQUIRE(gap.effects.pull_snapshot);
  BOOST_TEST(!pair.centre.on_snapshot(pair.agent.snapshot()).problem.has_value());
  BOOST_TEST(pair.centre.reservations() == 0u);
  BOOST_TEST(pair.centre.on_resend_period().orders.empty());
}

BOOST_AUTO_TEST_SUITE_END()
