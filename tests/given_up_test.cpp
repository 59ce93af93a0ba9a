// A request attempt given up (the hub decides the request again under a new attempt, because its
// scheduler or the hub stopped while deciding it): nothing the attempt placed keeps running,
// nothing of it is committed or carried out afterwards, and the request's next attempt is not
// held back by it. Without actors.
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <memory>

#include "cores/agent_core.hpp"
#include "cores/cluster_core.hpp"
#include "tests/commit_fixtures.hpp"

using namespace unisched;
using actors::CommitMode;
using actors::CommitStatus;
using testing::accepted_commit;
using testing::commit_at;
using testing::Pair;
using testing::reservation;

namespace {

std::vector<std::string> running(actors::AgentCore& agent) {
  std::vector<std::string> ids = agent.adapter().running_placements();
  std::sort(ids.begin(), ids.end());
  return ids;
}

actors::Commit commit_of(const std::string& request, const actors::ClusterCore& centre,
                         std::vector<model::Reservation> r) {
  actors::Commit commit = commit_at(centre, std::move(r));
  commit.request_id = request;
  return commit;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(given_up)

BOOST_AUTO_TEST_CASE(a_given_up_request_leaves_nothing_running_and_commits_no_more) {
  Pair pair;
  pair.carry_out(accepted_commit(pair, {reservation("r1/0", "sim-gpu-0", 1000, {0})}));
  pair.carry_out(accepted_commit(pair, {reservation("r2/0", "sim-gpu-1", 1000, {0})}));
  const auto unconfirmed = accepted_commit(pair, {reservation("r1/1", "sim-cpu-0", 500)});
  BOOST_TEST_REQUIRE(pair.centre.reservations() == 1u);

  pair.centre.give_up({"r1"});
  BOOST_TEST(pair.centre.reservations() == 0u);  // r1/1 dropped at once
  BOOST_TEST(pair.centre.given_up("r1"));
  BOOST_TEST(!pair.centre.given_up("r2"));
  const auto resend = pair.centre.on_resend_period();
  BOOST_TEST(resend.released_requests == std::vector<std::string>{"r1"});

  pair.agent.release_requests({"r1"});
  pair.sync();
  BOOST_TEST(running(pair.agent) == std::vector<std::string>{"r2/0"});
  testing::expect_view_matches(pair.centre.view(), pair.agent.adapter().list_nodes(), "released");

  // The order of r1/1 arrives late: refused, nothing runs.
  pair.carry_out(unconfirmed);
  BOOST_TEST(running(pair.agent) == std::vector<std::string>{"r2/0"});
  BOOST_TEST(pair.agent.counters().placements_refused == 1u);

  const auto again =
      pair.centre.commit(commit_of("r1", pair.centre, {reservation("r1/2", "sim-cpu-0", 500)}),
                         CommitMode::ClusterRevision);
  BOOST_TEST((again.status == CommitStatus::Refused));
  BOOST_TEST(again.reason == "request r1 was given up");
  const auto other =
      pair.centre.commit(commit_of("r3", pair.centre, {reservation("r3/0", "sim-cpu-0", 500)}),
                         CommitMode::ClusterRevision);
  BOOST_TEST((other.status == CommitStatus::Accepted));
}

BOOST_AUTO_TEST_CASE(the_next_attempt_of_a_given_up_request_is_committed_and_carried_out) {
  Pair pair;
  pair.carry_out(accepted_commit(pair, {reservation("r1/0", "sim-gpu-0", 1000, {0})}));
  pair.centre.give_up({"r1"});
  pair.agent.release_requests({"r1"});
  pair.sync();
  BOOST_TEST(running(pair.agent).empty());
  const actors::Commit next =
      commit_of("r1~1", pair.centre, {reservation("r1~1/0", "sim-gpu-0", 1000, {0})});
  const auto outcome = pair.centre.commit(next, CommitMode::ClusterRevision);
  BOOST_TEST_REQUIRE((outcome.status == CommitStatus::Accepted), outcome.reason);
  pair.carry_out(next);
  BOOST_TEST(running(pair.agent) == std::vector<std::string>{"r1~1/0"});
  BOOST_TEST(!pair.centre.given_up("r1~1"));
  // The agent keeps refusing the earlier attempt's placements, and only those.
  pair.agent.carry_out({reservation("r1/5", "sim-cpu-0", 500)});
  BOOST_TEST(running(pair.agent) == std::vector<std::string>{"r1~1/0"});
}

BOOST_AUTO_TEST_CASE(an_agent_that_restarted_releases_what_its_earlier_run_placed) {
  std::shared_ptr<adapters::ClusterAdapter> cluster = testing::simulated(1, 0.0, 0.0);
  actors::AgentCore before(cluster, 1);
  before.observe();
  before.carry_out(
      {reservation("r5/0", "sim-gpu-0", 1000, {0}), reservation("r6/0", "sim-gpu-1", 1000, {0})});
  actors::AgentCore after(cluster, 2);  // knows nothing of r5/0
  after.observe();
  after.release_requests({"r5"});
  BOOST_TEST(running(after) == std::vector<std::string>{"r6/0"});
  // Reported finished, so the centre's view and any ledger learn it ended.
  after.observe();
  const auto update = after.next_update();
  BOOST_TEST_REQUIRE(update.has_value());
  BOOST_TEST(update->finished_placements == std::vector<std::string>{"r5/0"});
}

BOOST_AUTO_TEST_CASE(an_order_naming_more_requests_than_are_remembered_releases_them_all) {
  Pair pair;
  pair.carry_out(accepted_commit(pair, {reservation("r0/0", "sim-gpu-0", 1000, {0})}));
  std::vector<std::string> requests{"r0"};
  for (int i = 0; i < 2000; ++i) {  // more than the agent and the ClusterActor remember
    requests.push_back("other-" + std::to_string(i));
  }
  pair.agent.release_requests(requests);
  BOOST_TEST(running(pair.agent).empty());
  accepted_commit(pair, {reservation("r0/1", "sim-cpu-0", 500)});  // held, not carried out
  requests.resize(5000, "more");
  for (size_t i = 2001; i < requests.size(); ++i) {
    requests[i] = "more-" + std::to_string(i);
  }
  pair.centre.give_up(requests);
  BOOST_TEST(pair.centre.reservations() == 0u);
}

BOOST_AUTO_TEST_CASE(a_placement_of_a_given_up_request_reported_running_is_released) {
  Pair pair;
  pair.centre.give_up({"r4"});
  pair.centre.on_resend_period();
  // An order that overtook the give-up (the agent was not told yet) ran.
  pair.agent.carry_out({reservation("r4/0", "sim-gpu-0", 1000, {0})});
  pair.sync();
  const auto resend = pair.centre.on_resend_period();
  BOOST_TEST(resend.releases == std::vector<std::string>{"r4/0"});
  BOOST_TEST(resend.released_requests == std::vector<std::string>{"r4"});
}

BOOST_AUTO_TEST_CASE(request_releases_are_sent_again_only_while_the_agent_can_answer) {
  Pair pair;
  pair.centre.give_up({"r7"});
  pair.centre.set_healthy(false);  // cut off: the periods do not count
  for (int period = 0; period < 3 * actors::ClusterCore::kReleaseResends; ++period) {
    BOOST_TEST_REQUIRE(pair.centre.on_resend_period().released_requests.size() == 1u);
  }
  pair.centre.set_healthy(true);
  int sent = 0;
  while (!pair.centre.on_resend_period().released_requests.empty() &&
         sent <= actors::ClusterCore::kReleaseResends) {
    ++sent;
  }
  BOOST_TEST(sent == actors::ClusterCore::kReleaseResends);
}

BOOST_AUTO_TEST_SUITE_END()
