#include "cores/cluster_core.hpp"

#include <boost/test/unit_test.hpp>

using namespace unisched;
using actors::AckStatus;
using actors::ClusterCore;

namespace {

model::ViewUpdate update(uint64_t base, std::vector<model::NodeChange> changes,
                         const std::string& cluster = "c1") {
  model::ViewUpdate u;
  u.cluster_id = cluster;
  u.epoch = 5;
  u.base_version = base;
  u.version = base + 1;
  for (model::NodeChange& change : changes) {
    u.changes.push_back(model::share(std::move(change)));
  }
  return u;
}

model::NodeChange node_change(model::NodeChangeKind kind, const std::string& name,
                              int64_t allocated_cpu = 0) {
  model::NodeChange change{kind, {}};
  change.node.name = name;
  change.node.allocatable_cpu_milli = 1000;
  change.node.allocated_cpu_milli = allocated_cpu;
  change.node.max_pods = 10;
  return change;
}

/// The agent's whole state at (epoch, version): these nodes, nothing allocated.
model::ViewSnapshot snapshot(uint64_t epoch, uint64_t version,
                             const std::vector<std::string>& nodes) {
  model::ViewSnapshot whole;
  whole.cluster_id = "c1";
  whole.epoch = epoch;
  whole.version = version;
  for (const std::string& name : nodes) {
    whole.nodes.push_back(std::make_shared<const model::NodeState>(
        node_change(model::NodeChangeKind::Add, name).node));
  }
  return whole;
}

/// Two changes: n1 and n2 added, then n1 updated (300 milli cpu allocated).
void add_two_nodes_then_update_one(ClusterCore& state) {
  BOOST_TEST_REQUIRE((state
                          .on_update(update(0, {node_change(model::NodeChangeKind::Add, "n1"),
                                                node_change(model::NodeChangeKind::Add, "n2")}))
                          .status == AckStatus::Applied));
  BOOST_TEST_REQUIRE(
      (state.on_update(update(1, {node_change(model::NodeChangeKind::Update, "n1", 300)})).status ==
       AckStatus::Applied));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cluster_core)

BOOST_AUTO_TEST_CASE(malformed_updates_get_a_reason_and_leave_the_view_unchanged) {
  ClusterCore state("c1");
  BOOST_TEST_REQUIRE(
      (state.on_update(update(0, {node_change(model::NodeChangeKind::Add, "n1")})).status ==
       AckStatus::Applied));
  struct Case {
    model::ViewUpdate update;
    std::string reason;
  };
  auto wrong_version = update(1, {});
  wrong_version.version = 5;
  const Case cases[] = {
      {update(1, {node_change(model::NodeChangeKind::Update, "n1", 10)}, "other"),
       "update for cluster \"other\" sent to \"c1\""},
      {update(1, {node_change(model::NodeChangeKind::Update, "", 10)}),
       "node without a name: a node change must name its node"},
      {update(1, {node_change(model::NodeChangeKind::Update, "n1", 10),
                  node_change(model::NodeChangeKind::Remove, "ghost")}),
       "unknown node: node \"ghost\": removed but not present"},
      {wrong_version, "version 5 of epoch 5 does not follow base version 1"},
  };
  for (const Case& c : cases) {
    const auto outcome = state.on_update(c.update);
    BOOST_TEST((outcome.status == AckStatus::Rejected), c.reason);
    BOOST_TEST(outcome.error == c.reason);
    BOOST_TEST(outcome.version == 1u);
    BOOST_TEST(state.view().find("n1")->allocated_cpu_milli == 0);
  }
  BOOST_TEST(state.counters().rejected == 4u);
  BOOST_TEST(state.counters().updates_applied == 1u);
  // The stream goes on after a refusal.
  BOOST_TEST(
      (state.on_update(update(1, {node_change(model::NodeChangeKind::Update, "n1", 10)})).status ==
       AckStatus::Applied));
}

BOOST_AUTO_TEST_CASE(updates_held_back_during_a_resync_are_replayed) {
  ClusterCore state("c1");
  state.on_update(update(0, {node_change(model::NodeChangeKind::Add, "n1")}));
  // 2 is lost; 3 arrives: a gap, and 3 is held back.
  const auto gap =
      state.on_update(update(2, {node_change(model::NodeChangeKind::Update, "n1", 30)}));
  BOOST_TEST((gap.status == AckStatus::Gap));
  BOOST_TEST(gap.effects.pull_snapshot);
  BOOST_TEST(!state.request_resync().pull_snapshot);  // one pull at a time
  model::ViewSnapshot snapshot;
  snapshot.cluster_id = "c1";
  snapshot.epoch = 5;
  snapshot.version = 2;
  snapshot.nodes = {std::make_shared<const model::NodeState>(
      node_change(model::NodeChangeKind::Add, "n1", 20).node)};
  BOOST_TEST(!state.on_snapshot(snapshot).problem.has_value());
  BOOST_TEST(state.position().version == 3u);  // the held-back update followed the snapshot
  BOOST_TEST(state.view().find("n1")->allocated_cpu_milli == 30);
  BOOST_TEST(state.counters().gaps == 1u);
  BOOST_TEST(state.counters().resyncs == 1u);
}

BOOST_AUTO_TEST_CASE(a_snapshot_with_a_node_without_a_name_is_refused_and_asked_for_again) {
  ClusterCore state("c1");
  BOOST_TEST(state.request_resync().pull_snapshot);
  model::ViewSnapshot snapshot;
  snapshot.cluster_id = "c1";
  snapshot.epoch = 1;
  snapshot.version = 3;
  snapshot.nodes = {
      std::make_shared<const model::NodeState>(node_change(model::NodeChangeKind::Add, "n1").node),
      std::make_shared<const model::NodeState>(node_change(model::NodeChangeKind::Add, "").node)};
  const auto refusal = state.on_snapshot(snapshot);
  BOOST_TEST_REQUIRE(refusal.problem.has_value());
  BOOST_TEST(*refusal.problem == "node without a name: a node change must name its node");
  BOOST_TEST(state.view().size() == 0u);
  BOOST_TEST(!refusal.effects.pull_snapshot);  // not at once: after the backoff
  BOOST_TEST(refusal.effects.pull_after_backoff);
  BOOST_TEST(state.resume_resync().pull_snapshot);
}

BOOST_AUTO_TEST_CASE(a_pull_that_fails_after_the_agent_started_over_asks_for_nothing) {
  ClusterCore state("c1");
  state.on_update(update(0, {node_change(model::NodeChangeKind::Add, "n1")}));
  BOOST_TEST(state.request_resync().pull_snapshot);  // a pull is in flight...
  // ...when the agent pushes its whole state.
  BOOST_TEST(!state.on_snapshot(snapshot(6, 1, {"n2"})).problem.has_value());
  state.on_resync_failed();  // the pull's late failure
  BOOST_TEST(!state.resyncing());
  BOOST_TEST(!state.resume_resync().pull_snapshot);
  BOOST_TEST(state.view().find("n2") != nullptr);
  // A pull that fails while still needed is asked for again, after the backoff.
  BOOST_TEST(state.request_resync().pull_snapshot);
  const auto failed = state.on_resync_failed();
  BOOST_TEST(!failed.pull_snapshot);
  BOOST_TEST(failed.pull_after_backoff);
  BOOST_TEST(state.resume_resync().pull_snapshot);
}

// Epochs increase from one run of an agent to the next: what an earlier run sent, however late
// it arrives and whatever its version, never replaces what a later run reported.
BOOST_AUTO_TEST_CASE(a_late_snapshot_or_update_of_an_earlier_run_never_replaces_the_view) {
  ClusterCore state("c1");
  state.on_update(update(0, {node_change(model::NodeChangeKind::Add, "n1")}));  // epoch 5
  BOOST_TEST(!state.on_snapshot(snapshot(6, 1, {"n2"})).problem.has_value());
  BOOST_TEST_REQUIRE(state.view().find("n2") != nullptr);

  // Epoch 5, at a version far ahead of 1.
  BOOST_TEST(!state.on_snapshot(snapshot(5, 40, {"n1"})).problem.has_value());
  BOOST_TEST(state.position().epoch == 6u);
  BOOST_TEST(state.position().version == 1u);
  BOOST_TEST(state.view().find("n2") != nullptr);
  BOOST_TEST(state.view().find("n1") == nullptr);

  const auto late = state.on_update(update(1, {node_change(model::NodeChangeKind::Add, "n3")}));
  BOOST_TEST((late.status == AckStatus::Rejected));
  BOOST_TEST(state.view().find("n3") == nullptr);
  BOOST_TEST(state.counters().rejected == 1u);
}

BOOST_AUTO_TEST_CASE(a_resync_is_needless_only_in_step_with_the_agent_and_none_under_way) {
  ClusterCore state("c1");
  state.on_update(update(0, {node_change(model::NodeChangeKind::Add, "n1")}));  // epoch 5, v1
  struct Case {
    const char* what;
    model::StreamPosition agent;
    bool in_step;
  };
  const Case cases[] = {
      {"where the view is", {5, 1}, true},
      {"ahead of the view", {5, 2}, false},
      {"a later run", {6, 1}, false},
  };
  for (const Case& c : cases) {
    BOOST_TEST(state.in_step_with(c.agent) == c.in_step, c.what);
    BOOST_TEST(state.resync_needless(c.agent) == c.in_step, c.what);
  }
  state.request_resync();  // one under way: asking again is not needless
  BOOST_TEST(state.in_step_with({5, 1}));
  BOOST_TEST(!state.resync_needless({5, 1}));
}

BOOST_AUTO_TEST_CASE(subscribers_read_the_views_own_node_states) {
  ClusterCore state("c1");
  add_two_nodes_then_update_one(state);
  // The change log and the whole view hand out the states the view holds, not copies.
  const auto changes = state.published().changes_since(1);
  BOOST_TEST_REQUIRE(changes.has_value());
  BOOST_TEST_REQUIRE(changes->size() == 1u);
  const model::SharedNodeChange& change = changes->front()->changes.at(0);
  BOOST_TEST(change.node.get() == state.view().find("n1"));
  BOOST_TEST(change.revision == state.revision());
  const auto whole = state.published().whole();
  BOOST_TEST(whole->whole);
  BOOST_TEST(whole->revision == state.revision());
  BOOST_TEST(whole->agent_version == 2u);
  BOOST_TEST_REQUIRE(whole->changes.size() == 2u);
  for (const model::SharedNodeChange& node : whole->changes) {
    BOOST_TEST(node.node.get() == state.view().find(node.node->name));
    BOOST_TEST(node.revision == state.view().revision_of(node.node->name));
  }
  // The copy for readers elsewhere says the same.
  const model::ViewSnapshot copied = model::to_snapshot(*whole);
  BOOST_TEST(copied.node_revisions == state.published().snapshot().node_revisions);
  BOOST_TEST(copied.nodes.at(0)->allocated_cpu_milli == 300);
}

BOOST_AUTO_TEST_CASE(a_copy_at_most_one_change_behind_catches_up_without_the_whole_view) {
  ClusterCore state("c1");
  BOOST_TEST(state.published().catch_up(0)->whole);  // nothing logged yet
  add_two_nodes_then_update_one(state);
  const auto last = state.published().changes_since(state.revision() - 1)->front();
  BOOST_TEST(
      (state.published().catch_up(state.revision()) == last));  // in step: the last change again
  BOOST_TEST(
      (state.published().catch_up(state.revision() - 1) == last));  // one behind: the last change
  const auto two_behind = state.published().catch_up(state.revision() - 2);
  BOOST_TEST(two_behind->whole);
  BOOST_TEST(two_behind->revision == state.revision());
  BOOST_TEST(two_behind->changes.size() == 2u);
  BOOST_TEST(
      state.published().catch_up(state.revision() + 1)->whole);  // ahead: not this view's revisions
}

BOOST_AUTO_TEST_CASE(health_transitions_are_counted) {
  ClusterCore state("c1");
  BOOST_TEST(!state.healthy());
  BOOST_TEST(state.set_healthy(true));
  BOOST_TEST(!state.set_healthy(true));
  BOOST_TEST(state.set_healthy(false));
  BOOST_TEST(state.counters().health_transitions == 2u);
}

BOOST_AUTO_TEST_CASE(the_change_log_keeps_at_most_an_eighth_of_the_view_in_node_changes) {
  ClusterCore state("c1");
  // A listing of 16,384 nodes: more node changes than the log may keep (2,048).
  std::vector<model::NodeChange> listing;
  for (int i = 0; i < 16'384; ++i) {
    listing.push_back(node_change(model::NodeChangeKind::Add, "n" + std::to_string(i)));
  }
  BOOST_TEST_REQUIRE((state.on_update(update(0, std::move(listing))).status == AckStatus::Applied));
  BOOST_TEST(
      !state.published().changes_since(0).has_value());  // behind the listing: the whole view
  // 128 updates of 16 node changes fill the budget exactly; one more pushes the oldest out.
  for (uint64_t version = 1; version <= 129; ++version) {
    std::vector<model::NodeChange> changes;
    for (int i = 0; i < 16; ++i) {
      changes.push_back(node_change(model::NodeChangeKind::Update, "n" + std::to_string(i), 1));
    }
    BOOST_TEST_REQUIRE(
        (state.on_update(update(version, std::move(changes))).status == AckStatus::Applied));
  }
  BOOST_TEST(!state.published().changes_since(1).has_value());
  const auto kept = state.published().changes_since(2);
  BOOST_TEST_REQUIRE(kept.has_value());
  BOOST_TEST(kept->size() == 128u);
  BOOST_TEST(kept->front()->base_revision == 2u);
}

BOOST_AUTO_TEST_SUITE_END()
