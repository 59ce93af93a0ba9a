// SchedulerViews: a scheduler's copies of the clusters' views, kept in step with each
// ClusterActor's feed by the one version rule (model/version_gate).
#include "cores/scheduler_views.hpp"

#include <boost/test/unit_test.hpp>

#include "tests/policy_fixtures.hpp"

using namespace unisched;
using actors::SchedulerViews;

namespace {

policy::ClusterInfo info(const std::string& id, bool healthy = true) {
  return {id, "r1", "r1-a", model::MachineType::VirtualMachine, healthy};
}

model::ViewRevision whole(const std::string& cluster, uint64_t revision,
                          std::vector<model::NodeState> nodes) {
  model::ViewRevision view;
  view.cluster_id = cluster;
  view.whole = true;
  view.revision = revision;
  for (auto& node : nodes) {
    view.changes.push_back(model::share({model::NodeChangeKind::Add, std::move(node)}));
  }
  view.resources = model::ClusterResources{};
  return view;
}

/// One change of the feed: `node` updated, from `base` to `base + 1` unless `revision` says.
model::ViewRevision change(const std::string& cluster, uint64_t base, model::NodeState node,
                           uint64_t revision = 0) {
  model::ViewRevision next;
  next.cluster_id = cluster;
  next.base_revision = base;
  next.revision = revision == 0 ? base + 1 : revision;
  next.changes.push_back(model::share({model::NodeChangeKind::Update, std::move(node)}));
  return next;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(scheduler_views)

BOOST_AUTO_TEST_CASE(a_cluster_joins_once_and_keeps_its_health) {
  SchedulerViews views;
  BOOST_TEST(views.add(info("a")));
  views.set_healthy("a", false);
  BOOST_TEST(!views.add(info("a", true)));  // known: joining again changes nothing it knows
  BOOST_TEST(!views.at("a").info.healthy);
  BOOST_TEST(views.size() == 1u);
  BOOST_TEST(views.candidates().empty());  // no copy of its view yet
  BOOST_TEST(!views.any_in_step());
  BOOST_TEST(!views.revision_in_step("a").has_value());
}

BOOST_AUTO_TEST_CASE(the_feed_is_judged_by_the_version_rule) {
  struct Case {
    const char* what;
    uint64_t base, revision;
    SchedulerViews::FeedResult result;
    uint64_t held_after;
  };
  const Case cases[] = {
      {"the next change", 3, 4, SchedulerViews::FeedResult::Applied, 4},
      {"one already held", 2, 3, SchedulerViews::FeedResult::Stale, 3},
      {"a change after a missed one", 4, 5, SchedulerViews::FeedResult::NeedsView, 3},
      {"a change that skips revisions", 3, 5, SchedulerViews::FeedResult::NeedsView, 3},
  };
  for (const Case& c : cases) {
    SchedulerViews views;
    views.add(info("a"));
    BOOST_TEST_REQUIRE(views.replace(whole("a", 3, {testing::node("n1", 8000, 32)})));
    auto busier = testing::node("n1", 8000, 32);
    busier.allocated_cpu_milli = 1000;
    BOOST_TEST((views.apply_feed(change("a", c.base, busier, c.revision)) == c.result), c.what);
    BOOST_TEST(*views.revision_in_step("a") == c.held_after, c.what);
    const bool applied = c.result == SchedulerViews::FeedResult::Applied;
    BOOST_TEST((views.at("a").view.find("n1")->allocated_cpu_milli == (applied ? 1000 : 0)),
               c.what);
  }
}

BOOST_AUTO_TEST_CASE(a_lost_cluster_actor_takes_its_copy_out_of_decisions_until_replaced) {
  SchedulerViews views;
  views.add(info("a"));
  views.add(info("b"));
  BOOST_TEST_REQUIRE(views.replace(whole("a", 1, {testing::node("n1", 8000, 32)})));
  BOOST_TEST_REQUIRE(views.replace(whole("b", 1, {testing::node("m1", 8000, 32)})));
  BOOST_TEST(views.candidates().size() == 2u);
  views.lose("a");
  BOOST_TEST(views.at("a").incarnation == 1u);
  BOOST_TEST(views.candidates().size() == 1u);
  BOOST_TEST(!views.revision_in_step("a").has_value());
  BOOST_TEST(views.any_in_step());
  BOOST_TEST(views.replace(whole("a", 9, {testing::node("n1", 8000, 32)})));  // the new actor's
  BOOST_TEST(views.candidates().size() == 2u);
  BOOST_TEST(*views.revision_in_step("a") == 9u);
}

BOOST_AUTO_TEST_CASE(what_is_not_a_whole_view_of_a_known_cluster_is_refused) {
  SchedulerViews views;
  views.add(info("a"));
  BOOST_TEST(!views.replace(whole("unknown", 1, {})));
  model::ViewRevision changes = whole("a", 1, {});
  changes.whole = false;
  BOOST_TEST(!views.replace(changes));
  BOOST_TEST((views.apply_feed(whole("a", 2, {})) == SchedulerViews::FeedResult::Stale));
  BOOST_TEST((views.apply_feed(change("unknown", 0, testing::node("n1", 1000, 1))) ==
              SchedulerViews::FeedResult::Stale));
}

BOOST_AUTO_TEST_SUITE_END()
