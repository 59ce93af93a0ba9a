// Compare-and-set commits and reservations, from decision to the cluster and back, without
// actors.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <random>

#include "cores/agent_core.hpp"
#include "cores/cluster_core.hpp"
#include "policy/pipeline.hpp"
#include "tests/commit_fixtures.hpp"
#include "tests/policy_fixtures.hpp"

using namespace unisched;
using actors::CommitMode;
using actors::CommitStatus;

using testing::accepted_commit;
using testing::commit_at;
using testing::Pair;
using testing::reservation;

BOOST_AUTO_TEST_SUITE(commit)

BOOST_AUTO_TEST_CASE(cluster_level_check_refuses_any_change_node_level_only_touched_nodes) {
  Pair pair;
  const auto first = commit_at(pair.centre, {reservation("a", "sim-gpu-0", 1000)});
  const auto second = commit_at(pair.centre, {reservation("b", "sim-gpu-1", 1000)});
  const auto same_node = commit_at(pair.centre, {reservation("c", "sim-gpu-0", 1000)});
  BOOST_TEST(
      (pair.centre.commit(first, CommitMode::ClusterRevision).status == CommitStatus::Accepted));
  const auto stale = pair.centre.commit(second, CommitMode::ClusterRevision);
  BOOST_TEST((stale.status == CommitStatus::Conflict));
  BOOST_TEST(stale.reason.find("decided at revision") != std::string::npos, stale.reason);
  BOOST_TEST(
      (pair.centre.commit(second, CommitMode::NodeRevisions).status == CommitStatus::Accepted));
  const auto clash = pair.centre.commit(same_node, CommitMode::NodeRevisions);
  BOOST_TEST((clash.status == CommitStatus::Conflict));
  BOOST_TEST(clash.reason == "node sim-gpu-0 changed since revision 1");
  BOOST_TEST(pair.centre.counters().conflicts == 2u);
}

// In one process the centre's view holds the very node states its agent sent, no copy; a node
// with reservations on it holds a state of its own with them, until they settle.
BOOST_AUTO_TEST_CASE(the_view_holds_the_states_its_agent_sent_but_where_it_reserves) {
  Pair pair;
  const auto untouched = pair.centre.view().shared("sim-gpu-1");
  const int64_t cpu_before = pair.centre.view().find("sim-gpu-0")->allocated_cpu_milli;
  const actors::Commit commit = accepted_commit(pair, {reservation("a", "sim-gpu-0", 1000)});
  BOOST_TEST(pair.centre.view().find("sim-gpu-0")->allocated_cpu_milli == cpu_before + 1000);
  pair.agent.carry_out(commit.reservations);
  pair.agent.observe();
  std::optional<model::ViewUpdate> update = pair.agent.next_update();
  BOOST_TEST_REQUIRE(update.has_value());
  const auto changed = std::find_if(
      update->changes.begin(), update->changes.end(),
      [](const model::SharedNodeChange& change) { return change.node->name == "sim-gpu-0"; });
  BOOST_TEST_REQUIRE((changed != update->changes.end()));
  const std::shared_ptr<const model::NodeState> sent = changed->node;
  BOOST_TEST_REQUIRE((pair.centre.on_update(*update).status == actors::AckStatus::Applied));
  BOOST_TEST(pair.centre.reservations() == 0u);
  BOOST_TEST(pair.centre.view().find("sim-gpu-0") == sent.get());  // settled: the agent's own
  BOOST_TEST(pair.centre.view().shared("sim-gpu-1") == untouched);
  // Reserved, then released without a change of the node: the agent's state comes back.
  accepted_commit(pair, {reservation("b", "sim-gpu-1", 1000)});
  BOOST_TEST(pair.centre.view().shared("sim-gpu-1") != untouched);
  pair.centre.release({"b"});
  BOOST_TEST(pair.centre.view().shared("sim-gpu-1") == untouched);
}

/// The agent's next update after carrying out `commit`, which must report it applied.
model::ViewUpdate carried_out_report(Pair& pair, const actors::Commit& commit) {
  pair.agent.carry_out(commit.reservations);
  pair.agent.observe();
  std::optional<model::ViewUpdate> update = pair.agent.next_update();
  BOOST_TEST_REQUIRE(update.has_value());
  BOOST_TEST_REQUIRE(update->applied_placements.size() == 1u);
  BOOST_TEST_REQUIRE(update->applied_placements[0] == commit.reservations[0].id);
  return *update;
}

// What an agent reports carried out is what was reserved: schedulers see no change, the view
// keeps its revision, and decisions taken on the reserved state (both kinds) still commit.
BOOST_AUTO_TEST_CASE(a_reservation_carried_out_is_no_new_revision_and_conflicts_with_nothing) {
  Pair pair;
  const actors::Commit commit = accepted_commit(pair, {reservation("a", "sim-gpu-0", 1000)});
  const uint64_t reserved_at = pair.centre.revision();
  const auto same_node = commit_at(pair.centre, {reservation("b", "sim-gpu-0", 1000)});
  const auto whole_cluster = commit_at(pair.centre, {reservation("c", "sim-gpu-1", 1000)});
  const model::ViewUpdate report = carried_out_report(pair, commit);
  BOOST_TEST_REQUIRE((pair.centre.on_update(report).status == actors::AckStatus::Applied));
  BOOST_TEST(pair.centre.reservations() == 0u);
  BOOST_TEST(pair.centre.revision() == reserved_at);
  BOOST_TEST(pair.centre.published().changes_since(reserved_at)->empty());
  BOOST_TEST(pair.centre.position().version == report.version);
  const auto cluster_level = pair.centre.commit(whole_cluster, CommitMode::ClusterRevision);
  BOOST_TEST((cluster_level.status == CommitStatus::Accepted), cluster_level.reason);
  const auto node_level = pair.centre.commit(same_node, CommitMode::NodeRevisions);
  BOOST_TEST((node_level.status == CommitStatus::Accepted), node_level.reason);
  BOOST_TEST(pair.centre.counters().conflicts == 0u);
}

// A cluster that carried a placement out other than as reserved (here: more cpu taken) is a
// change schedulers see, at a new revision.
BOOST_AUTO_TEST_CASE(a_placement_carried_out_otherwise_than_reserved_is_a_new_revision) {
  Pair pair;
  const actors::Commit commit = accepted_commit(pair, {reservation("a", "sim-gpu-0", 1000)});
  const uint64_t reserved_at = pair.centre.revision();
  const int64_t reserved_cpu = pair.centre.view().find("sim-gpu-0")->allocated_cpu_milli;
  model::ViewUpdate report = carried_out_report(pair, commit);
  for (model::SharedNodeChange& change : report.changes) {
    if (change.node->name == "sim-gpu-0") {
      auto more = std::make_shared<model::NodeState>(*change.node);
      more->allocated_cpu_milli += 500;
      change.node = std::move(more);
    }
  }
  BOOST_TEST_REQUIRE((pair.centre.on_update(report).status == actors::AckStatus::Applied));
  BOOST_TEST(pair.centre.revision() == reserved_at + 1);
  BOOST_TEST(pair.centre.view().find("sim-gpu-0")->allocated_cpu_milli == reserved_cpu + 500);
  BOOST_TEST(pair.centre.published().snapshot().node_revisions.at("sim-gpu-0") == reserved_at + 1);
}

// A resync gives every node of the new view a revision, so that a scheduler deciding on that
// view can commit to nodes that have not changed since. (They lost theirs: the view took the
// snapshot's nodes over before their names were read, and every node-level commit after a
// resync conflicted until its node changed again.)
BOOST_AUTO_TEST_CASE(after_a_resync_every_node_has_a_revision_to_commit_against) {
  Pair pair;
  BOOST_TEST_REQUIRE(pair.centre.request_resync().pull_snapshot);
  BOOST_TEST_REQUIRE(!pair.centre.on_snapshot(pair.agent.snapshot()).problem.has_value());
  const model::ViewSnapshot seen = pair.centre.published().snapshot();
  BOOST_TEST_REQUIRE(seen.nodes.size() > 1u);
  BOOST_TEST(seen.node_revisions.size() == seen.nodes.size());
  for (const auto& node : seen.nodes) {
    BOOST_TEST(seen.node_revisions.count(node->name) == 1u, node->name);
  }
  const auto commit = commit_at(pair.centre, {reservation("a", "sim-gpu-0", 1000)});
  const auto outcome = pair.centre.commit(commit, CommitMode::NodeRevisions);
  BOOST_TEST((outcome.status == CommitStatus::Accepted), outcome.reason);
}

// A resync to a snapshot that no longer lists a node hands back what was reserved on it, and
// keeps the reservations on the nodes it lists.
BOOST_AUTO_TEST_CASE(a_resync_without_a_reserved_node_hands_its_reservation_back) {
  Pair pair;
  accepted_commit(pair, {reservation("a", "sim-gpu-0", 1000)});
  accepted_commit(pair, {reservation("b", "sim-gpu-1", 1000)});
  model::ViewSnapshot snapshot = pair.agent.snapshot();
  const auto gone = std::find_if(snapshot.nodes.begin(), snapshot.nodes.end(),
                                 [](const auto& node) { return node->name == "sim-gpu-0"; });
  BOOST_TEST_REQUIRE((gone != snapshot.nodes.end()));
  snapshot.nodes.erase(gone);
  BOOST_TEST_REQUIRE(pair.centre.request_resync().pull_snapshot);
  const auto taken = pair.centre.on_snapshot(snapshot);
  BOOST_TEST_REQUIRE(!taken.problem.has_value());
  const auto& refused = taken.effects.refused;
  BOOST_TEST_REQUIRE(refused.size() == 1u);
  BOOST_TEST(refused[0].first == "a");
  BOOST_TEST(refused[0].second == "node sim-gpu-0 left the cluster");
  BOOST_TEST(pair.centre.reservations() == 1u);
  BOOST_TEST(pair.centre.view().find("sim-gpu-0") == nullptr);
  BOOST_TEST(pair.centre.view().size() == snapshot.nodes.size());
}

BOOST_AUTO_TEST_CASE(a_reservation_shows_at_once_and_settles_without_double_counting) {
  Pair pair;
  const int64_t before = pair.centre.view().find("sim-gpu-0")->allocated_cpu_milli;
  const auto commit = accepted_commit(pair, {reservation("a", "sim-gpu-0", 4000, {0, 1}, {8080})});
  const model::NodeState* reserved = pair.centre.view().find("sim-gpu-0");
  BOOST_TEST(reserved->allocated_cpu_milli == before + 4000);
  BOOST_TEST(reserved->free_devices("A100") == 2);
  BOOST_TEST(reserved->host_ports_in_use == std::vector<int32_t>{8080});
  pair.carry_out(commit);
  BOOST_TEST(pair.centre.reservations() == 0u);
  BOOST_TEST(pair.centre.counters().placements_confirmed == 1u);
  testing::expect_view_matches(pair.centre.view(), pair.agent.adapter().list_nodes(), "settled");
  BOOST_TEST(pair.centre.view().find("sim-gpu-0")->allocated_cpu_milli == before + 4000);
}

BOOST_AUTO_TEST_CASE(a_commit_naming_one_placement_twice_is_refused_and_reserves_nothing) {
  Pair pair;
  const auto before = pair.centre.published().snapshot();
  const auto twice = commit_at(
      pair.centre, {reservation("a", "sim-gpu-0", 1000), reservation("a", "sim-gpu-1", 1000)});
  const auto outcome = pair.centre.commit(twice, CommitMode::ClusterRevision);
  BOOST_TEST((outcome.status == CommitStatus::Refused));
  BOOST_TEST(outcome.reason == "placement a appears twice in the commit");
  BOOST_TEST(pair.centre.reservations() == 0u);
  BOOST_TEST(pair.centre.revision() == before.version);
  testing::expect_view_matches(pair.centre.view(), before.nodes, "after the refusal");
}

BOOST_AUTO_TEST_CASE(an_update_the_view_refuses_leaves_every_reservation_as_it_was) {
  Pair pair;
  const int64_t before = pair.centre.view().find("sim-gpu-0")->allocated_cpu_milli;
  const auto commit = accepted_commit(pair, {reservation("a", "sim-gpu-0", 4000, {0})});
  const auto reserved = pair.centre.published().snapshot();
  // Settles "a" and changes its node, but adds a node the view holds: refused whole.
  model::ViewUpdate update;
  update.cluster_id = "sim";
  update.epoch = pair.centre.position().epoch;
  update.base_version = pair.centre.position().version;
  update.version = update.base_version + 1;
  model::NodeState changed = *pair.centre.view().find("sim-gpu-0");
  changed.allocated_cpu_milli = before + 4000;
  update.changes.push_back(model::share({model::NodeChangeKind::Update, changed}));
  update.changes.push_back(
      model::share({model::NodeChangeKind::Add, *pair.centre.view().find("sim-gpu-1")}));
  update.applied_placements = {"a"};
  BOOST_TEST((pair.centre.on_update(update).status == actors::AckStatus::Rejected));
  BOOST_TEST(pair.centre.reservations() == 1u);
  BOOST_TEST(pair.centre.revision() == reserved.version);
  testing::expect_view_matches(pair.centre.view(), reserved.nodes, "after the refused update");
  // The reservation still settles when the cluster reports it.
  pair.carry_out(commit);
  BOOST_TEST(pair.centre.reservations() == 0u);
  testing::expect_view_matches(pair.centre.view(), pair.agent.adapter().list_nodes(), "settled");
}

BOOST_AUTO_TEST_CASE(a_placement_the_cluster_refuses_is_handed_back) {
  Pair pair;
  const auto commit = accepted_commit(pair, {reservation("a", "sim-gpu-0", 1000, {0})});
  // Meanwhile something else took the device on the cluster itself.
  pair.agent.adapter().apply({"intruder", "sim-gpu-0", 0, 0, {0}, 1000, {}, {}});
  const auto refused = pair.carry_out(commit).refused;
  BOOST_TEST_REQUIRE(refused.size() == 1u);
  BOOST_TEST(refused[0].first == "a");
  BOOST_TEST(refused[0].second == "does not fit");
  BOOST_TEST(pair.centre.reservations() == 0u);
  testing::expect_view_matches(pair.centre.view(), pair.agent.adapter().list_nodes(), "refused");
}

BOOST_AUTO_TEST_CASE(released_reservations_leave_no_trace) {
  Pair pair;
  const auto before = pair.centre.published().snapshot();
  const auto commit = accepted_commit(pair, {reservation("g/0", "sim-gpu-0", 1000, {0}),
                                             reservation("g/1", "sim-gpu-1", 1000, {0})});
  pair.centre.release({"g/0", "g/1"});
  BOOST_TEST(pair.centre.reservations() == 0u);
  testing::expect_view_matches(pair.centre.view(), before.nodes, "after release");
  BOOST_TEST(pair.centre.revision() == before.version + 2);
}

BOOST_AUTO_TEST_CASE(no_commit_to_an_unhealthy_cluster_or_beyond_what_fits) {
  Pair pair;
  const auto busy_device = commit_at(pair.centre, {reservation("a", "sim-gpu-0", 1000, {0}),
                                                   reservation("b", "sim-gpu-0", 1000, {0})});
  const auto refused = pair.centre.commit(busy_device, CommitMode::ClusterRevision);
  BOOST_TEST((refused.status == CommitStatus::Refused));
  BOOST_TEST(refused.reason == "node sim-gpu-0 device 0 is not free");
  BOOST_TEST(pair.centre.reservations() == 0u);  // nothing of a refused commit stays
  pair.centre.set_healthy(false);
  const auto sick = pair.centre.commit(commit_at(pair.centre, {reservation("c", "sim-cpu-0", 1)}),
                                       CommitMode::ClusterRevision);
  BOOST_TEST((sick.status == CommitStatus::Refused));
  BOOST_TEST(sick.reason == "cluster sim is not healthy");
}

BOOST_AUTO_TEST_CASE(racing_schedulers_never_over_commit) {
  std::string error;
  const auto policy = *policy::Registry::builtin().preset("binpack", error);
  const std::vector<std::string> shapes = {
      "  resources:\n    cpu: 3\n    memory: 8Gi\n",
      "  resources:\n    cpu: 1\n    accelerators:\n      - model: A100\n        count: 2\n"
      "        topology: NVLink\n",
      "  resources:\n    cpu: 500m\n    hostPorts: [9000]\n",
      "  resources:\n    cpu: 1\n    accelerators:\n      - models: [A100, H100]\n"
      "        share: 350m\n",
  };
  for (const CommitMode mode : {CommitMode::ClusterRevision, CommitMode::NodeRevisions}) {
    Pair pair;
    std::mt19937_64 random(mode == CommitMode::ClusterRevision ? 1 : 2);
    // Three schedulers, each with its own copy of the view, refreshed now and then.
    std::vector<model::ViewSnapshot> copies(3, pair.centre.published().snapshot());
    uint64_t accepted = 0;
    uint64_t conflicts = 0;
    for (int round = 0; round < 300; ++round) {
      const size_t s = std::uniform_int_distribution<size_t>(0, 2)(random);
      if (std::bernoulli_distribution(0.3)(random)) {
        copies[s] = pair.centre.published().snapshot();
      }
      model::ClusterView local;
      BOOST_TEST_REQUIRE(
          !local.replace(copies[s].nodes, copies[s].resources, model::Allocation::MayExceed)
               .has_value());
      const policy::ClusterInfo info{"sim", "r1", "z1", model::MachineType::VirtualMachine, true};
      const auto spec = testing::request(shapes[round % shapes.size()]);
      const auto decision = policy::decide(spec, {{&info, &local}}, policy);
      if (decision.placements.empty()) {
        continue;
      }
      actors::Commit commit;
      commit.revision = copies[s].version;
      for (size_t i = 0; i < decision.placements.size(); ++i) {
        const auto& p = decision.placements[i];
        commit.reservations.push_back({"r" + std::to_string(round) + "/" + std::to_string(i),
                                       p.node,
                                       p.cpu_milli,
                                       p.memory_bytes,
                                       p.devices,
                                       p.host_ports,
                                       p.device_milli,
                                       {}});
        commit.node_revisions[p.node] = copies[s].node_revisions.at(p.node);
      }
      const auto outcome = pair.centre.commit(commit, mode);
      BOOST_TEST((outcome.status != CommitStatus::Refused), outcome.reason);
      if (outcome.status == CommitStatus::Accepted) {
        ++accepted;
        pair.carry_out(commit);
      } else {
        ++conflicts;
      }
      if (round % 50 == 49) {  // work finishes now and then
        std::vector<std::string> done;
        for (int i = round - 49; i < round - 25; ++i) {
          done.push_back("r" + std::to_string(i) + "/0");
        }
        pair.agent.finish(done);
        pair.sync();
      }
    }
    BOOST_TEST(pair.agent.counters().placements_refused == 0u);  // never accepted too much
    BOOST_TEST(accepted > 20u);
    BOOST_TEST(conflicts > 0u);
    bool shared = false;  // some device holds shares (of 350 milli) beside whole work
    for (const auto& node : pair.agent.adapter().list_nodes()) {
      BOOST_TEST(!model::check_node(node).has_value(), node.name);
      for (const auto& device : node.devices) {
        shared = shared || device.allocated_milli % model::kWholeDeviceMilli != 0;
      }
    }
    BOOST_TEST(shared);
    testing::expect_view_matches(pair.centre.view(), pair.agent.adapter().list_nodes(), "end");
  }
}

BOOST_AUTO_TEST_CASE(racing_commits_under_churn_keep_every_cluster_within_its_resources) {
  std::string error;
  const auto policy = *policy::Registry::builtin().preset("balanced", error);
  const auto spec = testing::request(
      "  resources:\n    cpu: 2\n    memory: 4Gi\n    accelerators:\n      - count: 1\n");
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    actors::AgentCore agent(testing::simulated(seed, 3.0, 150.0), seed);
    actors::ClusterCore centre("sim");
    std::mt19937_64 random(seed);
    const auto sync = [&] {
      agent.observe();
      if (auto update = agent.next_update()) {
        centre.on_update(*update);
      }
    };
    sync();
    centre.set_healthy(true);
    std::vector<model::ViewSnapshot> copies(2, centre.published().snapshot());
    uint64_t accepted = 0;
    for (int round = 0; round < 150; ++round) {
      const size_t s = static_cast<size_t>(round) % 2;
      if (std::bernoulli_distribution(0.4)(random)) {
        copies[s] = centre.published().snapshot();
      }
      model::ClusterView local;
      BOOST_TEST_REQUIRE(
          !local.replace(copies[s].nodes, copies[s].resources, model::Allocation::MayExceed)
               .has_value());
      const policy::ClusterInfo info{"sim", "r1", "z1", model::MachineType::VirtualMachine, true};
      for (const auto& p : policy::decide(spec, {{&info, &local}}, policy).placements) {
        actors::Commit commit;
        commit.revision = copies[s].version;
        commit.node_revisions[p.node] = copies[s].node_revisions.at(p.node);
        commit.reservations.push_back({"r" + std::to_string(round),
                                       p.node,
                                       p.cpu_milli,
                                       p.memory_bytes,
                                       p.devices,
                                       p.host_ports,
                                       p.device_milli,
                                       {}});
        const auto mode = seed % 2 ? CommitMode::ClusterRevision : CommitMode::NodeRevisions;
        if (centre.commit(commit, mode).status == CommitStatus::Accepted) {
          ++accepted;
          agent.carry_out(commit.reservations);
        }
      }
      sync();  // the cluster churns on between decisions
    }
    for (int i = 0; i < 3; ++i) {
      sync();
    }
    const std::string context = "seed " + std::to_string(seed);
    BOOST_TEST(accepted > 0u, context);
    for (const auto& node : agent.adapter().list_nodes()) {
      BOOST_TEST(!model::check_node(node).has_value(), context << " " << node.name);
    }
    BOOST_TEST(centre.reservations() == 0u, context);
    testing::expect_view_matches(centre.view(), agent.adapter().list_nodes(), context);
  }
}

BOOST_AUTO_TEST_CASE(a_reservation_takes_its_share_of_a_device_and_no_more) {
  model::NodeState node = testing::node("n", 64000, 256, 2);
  model::Reservation share = reservation("s/0", node.name, 1000, {0});
  share.device_milli = {600};
  BOOST_TEST(!model::reservation_conflict(node, share));
  model::apply_reservation(node, share, +1);
  BOOST_TEST(node.devices[0].allocated_milli == 600);
  share.id = "s/1";
  BOOST_TEST(*model::reservation_conflict(node, share) ==
             "node " + node.name + " device 0 has 400 milli free, not 600");
  share.device_milli = {400};
  BOOST_TEST(!model::reservation_conflict(node, share));
  share.device_milli = {0};
  BOOST_TEST(*model::reservation_conflict(node, share) ==
             "placement s/1 takes 0 milli of a device (1 to 1000)");
  share.device_milli = {400, 400};
  BOOST_TEST(*model::reservation_conflict(node, share) ==
             "placement s/1 gives 2 device shares for 1 devices");
  share.id = "s/0";
  share.device_milli = {600};
  model::apply_reservation(node, share, -1);
  BOOST_TEST(node.devices[0].allocated_milli == 0);
  // Held on a device its cluster reports shared far past whole (as a view may hold it): the
  // share stops at the most a device's 16 bits keep instead of wrapping below zero.
  node.devices[0].allocated_milli = model::kMaxDeviceAllocatedMilli - 100;
  model::apply_reservation(node, share, +1);
  BOOST_TEST(node.devices[0].allocated_milli == model::kMaxDeviceAllocatedMilli);
}

BOOST_AUTO_TEST_SUITE_END()
