// SchedulerTracking: decided work remembered until its clusters settle it, refused replicas
// handed back to be placed again, gangs given up, and the bound on what is remembered.
#include "cores/scheduler_tracking.hpp"

#include <boost/test/unit_test.hpp>

#include <string>
#include <utility>
#include <vector>

using unisched::actors::SchedulerCommands;
using unisched::actors::SchedulerTracking;
using unisched::actors::SchedulerWork;
using Decision = unisched::actors::RequestDecision;

namespace {

const auto kNow = std::chrono::steady_clock::time_point{};

/// A decision of `request` placing (placement, cluster, node) replicas.
Decision decided(const std::string& request,
                 const std::vector<std::tuple<std::string, std::string, std::string>>& replicas) {
  Decision decision;
  decision.request_id = request;
  decision.status = Decision::Status::Placed;
  for (const auto& [id, cluster, node] : replicas) {
    decision.replicas.push_back(Decision::Replica{id, cluster, node, {}, {}});
  }
  return decision;
}

unisched::model::SchedulingRequestSpec spec(int64_t replicas, bool gang) {
  unisched::model::SchedulingRequestSpec made;
  made.replicas = replicas;
  made.distribution.gang = gang;
  return made;
}

std::vector<std::string> ids_of(const Decision& decision) {
  std::vector<std::string> ids;
  for (const auto& replica : decision.replicas) {
    ids.push_back(replica.placement_id);
  }
  return ids;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(scheduler_tracking)

BOOST_AUTO_TEST_CASE(a_request_is_forgotten_once_every_placement_settled) {
  struct Case {
    const char* what;
    std::vector<std::string> settled;
    std::vector<std::string> forgotten;
    size_t tracked;
  };
  const Case cases[] = {
      {"nothing settled", {}, {}, 1},
      {"one of two", {"r/0"}, {}, 1},
      {"both", {"r/0", "r/1"}, {"r"}, 0},
      {"unknown placements change nothing", {"x/0"}, {}, 1},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.what) {
      SchedulerTracking tracking(10, false);
      tracking.track("r", spec(2, false), decided("r", {{"r/0", "a", "n1"}, {"r/1", "b", "n2"}}));
      BOOST_TEST((tracking.settle(c.settled).forgotten == c.forgotten));
      BOOST_TEST(tracking.size() == c.tracked);
    }
  }
}

BOOST_AUTO_TEST_CASE(past_the_bound_the_oldest_is_forgotten_and_counted) {
  SchedulerTracking tracking(2, false);
  BOOST_TEST(
      tracking.track("a", spec(1, false), decided("a", {{"a/0", "c", "n"}})).forgotten.empty());
  BOOST_TEST(
      tracking.track("b", spec(1, false), decided("b", {{"b/0", "c", "n"}})).forgotten.empty());
  const SchedulerCommands third =
      tracking.track("c", spec(1, false), decided("c", {{"c/0", "c", "n"}}));
  BOOST_TEST((third.forgotten == std::vector<std::string>{"a"}));
  BOOST_TEST(tracking.size() == 2u);
  BOOST_TEST(tracking.forgotten_unsettled() == 1u);
  // A forgotten request's placements are no longer its: a refusal of one is not tracked.
  BOOST_TEST(!tracking.refuse("a/0", "no room", kNow).again.get());
}

BOOST_AUTO_TEST_CASE(a_refused_replica_is_handed_back_alone_away_from_the_node_that_refused) {
  SchedulerTracking tracking(10, true);
  tracking.track("r", spec(2, true), decided("r", {{"r/0", "a", "n1"}, {"r/1", "b", "n2"}}));
  BOOST_TEST(!tracking.refuse("other/0", "no room", kNow).again.get());
  SchedulerTracking::Refusal refusal = tracking.refuse("r/1", "no room", kNow);
  BOOST_TEST_REQUIRE(bool(refusal.again));
  const SchedulerWork& again = *refusal.again;
  BOOST_TEST(again.id == "r/1-again");
  BOOST_TEST(again.request_id == "r");
  BOOST_TEST(again.replaces == "r/1");
  BOOST_TEST(again.spec.replicas == 1);
  BOOST_TEST(!again.spec.distribution.gang);
  BOOST_TEST((again.avoid == std::set<unisched::policy::NodeRef>{{"b", "n2"}}));
  BOOST_TEST_REQUIRE(refusal.update.has_value());
  BOOST_TEST(refusal.update->replacing == 1u);
  // Placed again on another node: the decision names the new replica instead.
  const SchedulerTracking::Replaced replaced =
      tracking.replaced(again, decided("r/1-again", {{"r/1-again/0", "a", "n3"}}));
  BOOST_TEST(replaced.kept);
  BOOST_TEST_REQUIRE(replaced.commands.updates.size() == 1u);
  const Decision& update = replaced.commands.updates[0];
  BOOST_TEST((update.status == Decision::Status::Placed));
  BOOST_TEST(update.replacing == 0u);
  BOOST_TEST((ids_of(update) == std::vector<std::string>{"r/0", "r/1-again/0"}));
  BOOST_TEST(replaced.commands.releases.empty());
  BOOST_TEST((tracking.settle({"r/0", "r/1-again/0"}).forgotten == std::vector<std::string>{"r"}));
}

BOOST_AUTO_TEST_CASE(a_gang_whose_refused_replica_finds_no_place_is_given_up) {
  SchedulerTracking tracking(10, true);
  tracking.track("g", spec(2, true), decided("g", {{"g/0", "a", "n1"}, {"g/1", "b", "n2"}}));
  SchedulerTracking::Refusal refusal = tracking.refuse("g/1", "no room", kNow);
  BOOST_TEST_REQUIRE(bool(refusal.again));
  const SchedulerTracking::Replaced replaced =
      tracking.replaced(*refusal.again, decided("g/1-again", {}));
  BOOST_TEST(replaced.kept);
  const SchedulerCommands& out = replaced.commands;
  BOOST_TEST_REQUIRE(out.updates.size() == 1u);
  BOOST_TEST((out.updates[0].status == Decision::Status::Unschedulable));
  BOOST_TEST(out.updates[0].replicas.size() == 0u);
  BOOST_TEST_REQUIRE(out.releases.size() == 1u);
  BOOST_TEST(out.releases[0].cluster_id == "a");
  BOOST_TEST((out.quota_releases == std::vector<std::string>{"g/0"}));
  BOOST_TEST((out.forgotten == std::vector<std::string>{"g"}));
  BOOST_TEST(tracking.size() == 0u);
}

BOOST_AUTO_TEST_CASE(a_replica_placed_after_its_gang_was_given_up_is_released_too) {
  SchedulerTracking tracking(10, false);
  tracking.track("g", spec(3, true),
                 decided("g", {{"g/0", "a", "n1"}, {"g/1", "b", "n2"}, {"g/2", "b", "n3"}}));
  auto first = tracking.refuse("g/1", "no room", kNow);
  auto second = tracking.refuse("g/2", "no room", kNow);
  BOOST_TEST(tracking.replaced(*first.again, decided("g/1-again", {})).kept);  // gives up
  const SchedulerTracking::Replaced late =
      tracking.replaced(*second.again, decided("g/2-again", {{"g/2-again/0", "a", "n4"}}));
  BOOST_TEST(!late.kept);
  BOOST_TEST(late.commands.updates.empty());
  BOOST_TEST_REQUIRE(late.commands.releases.size() == 1u);
  BOOST_TEST(late.commands.releases[0].placement_ids.at(0) == "g/2-again/0");
  BOOST_TEST((late.commands.forgotten == std::vector<std::string>{"g"}));
}

BOOST_AUTO_TEST_CASE(unsettled_placements_of_a_cluster_come_in_request_order) {
  SchedulerTracking tracking(10, false);
  tracking.track("zeta", spec(1, false), decided("zeta", {{"zeta/0", "a", "n1"}}));
  tracking.track("alpha", spec(2, false),
                 decided("alpha", {{"alpha/0", "a", "n1"}, {"alpha/1", "b", "n2"}}));
  tracking.track("mid", spec(1, false), decided("mid", {{"mid/0", "a", "n2"}}));
  tracking.settle({"mid/0"});
  BOOST_TEST((tracking.unsettled_on("a") == std::vector<std::string>{"alpha/0", "zeta/0"}));
  BOOST_TEST((tracking.unsettled_on("b") == std::vector<std::string>{"alpha/1"}));
  BOOST_TEST(tracking.unsettled_on("c").empty());
}

BOOST_AUTO_TEST_CASE(refusals_that_overtook_their_commit_wait_for_its_decision) {
  SchedulerTracking tracking(10, false);
  tracking.refused_early("r/0", "no room");
  tracking.refused_early("r/1", "port taken");
  tracking.refused_early("s/0", "no room");
  const Decision s = decided("s", {{"s/0", "a", "n1"}});
  tracking.forget_early_refusals({s.replicas.begin(), s.replicas.end()});  // not kept
  BOOST_TEST(tracking.take_early_refusals(s).empty());
  const Decision r = decided("r", {{"r/0", "a", "n1"}, {"r/1", "a", "n2"}});
  const std::vector<std::pair<std::string, std::string>> expected{{"r/0", "no room"},
                                                                  {"r/1", "port taken"}};
  BOOST_TEST((tracking.take_early_refusals(r) == expected));
  BOOST_TEST(tracking.take_early_refusals(r).empty());  // taken once
}

BOOST_AUTO_TEST_SUITE_END()
