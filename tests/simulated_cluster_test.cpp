#include "adapters/simulated_cluster.hpp"

#include <boost/test/unit_test.hpp>

#include <set>

#include "adapters/node_shapes.hpp"
#include "tests/simulation_fixtures.hpp"

using namespace unisched;

BOOST_AUTO_TEST_SUITE(simulated_cluster)

BOOST_AUTO_TEST_CASE(nodes_follow_the_profile) {
  const auto nodes = adapters::expand_nodes(testing::small_profile());
  BOOST_TEST_REQUIRE(nodes.size() == 10u);
  BOOST_TEST(nodes[0].name == "sim-gpu-0");
  BOOST_TEST(nodes[0].devices.size() == 4u);
  BOOST_TEST((nodes[0].devices[3].interconnect == model::Interconnect::NVLink));
  BOOST_TEST(nodes[0].devices[3].topology_group == nodes[0].devices[0].topology_group);
  BOOST_TEST(nodes[0].labels.at("topology.kubernetes.io/zone") == "z1");
  BOOST_TEST(nodes[9].name == "sim-cpu-5");
  BOOST_TEST(nodes[9].allocatable_cpu_milli == 16000);
  BOOST_TEST(adapters::expand_nodes(testing::small_profile(), 25).size() == 25u);
}

BOOST_AUTO_TEST_CASE(nodes_can_take_given_names_in_the_order_they_are_built) {
  adapters::SimulationOptions options;
  options.node_names = {"trace-a", "trace-b"};  // the rest keep their built names
  const adapters::SimulatedCluster cluster(testing::small_profile(), options);
  const auto nodes = cluster.list_nodes();
  BOOST_TEST_REQUIRE(nodes.size() == 10u);
  std::set<std::string> names;
  for (const auto& node : nodes) {
    names.insert(node.name);
  }
  BOOST_TEST(names.count("trace-a") == 1u);
  BOOST_TEST(names.count("trace-b") == 1u);
  BOOST_TEST(names.count("sim-gpu-0") == 0u);  // the first two built were renamed
  BOOST_TEST(names.count("sim-gpu-2") == 1u);
}

BOOST_AUTO_TEST_CASE(totals_without_groups_are_spread_evenly) {
  auto profile = testing::small_profile();
  profile.spec.node_groups.clear();
  profile.spec.node_count = 3;
  profile.spec.compute =
      model::ComputeSpec{*model::Quantity::parse("10"), *model::Quantity::parse("3Gi")};
  const auto nodes = adapters::expand_nodes(profile);
  BOOST_TEST_REQUIRE(nodes.size() == 3u);
  BOOST_TEST(nodes[0].allocatable_cpu_milli == 3334);
  BOOST_TEST(nodes[2].allocatable_cpu_milli == 3333);
  BOOST_TEST(nodes[1].allocatable_memory_bytes == int64_t{1} << 30);
}

BOOST_AUTO_TEST_CASE(the_same_seed_gives_the_same_history) {
  auto a = testing::simulated(42);
  auto b = testing::simulated(42);
  auto c = testing::simulated(43);
  bool differs_from_other_seed = false;
  for (int step = 0; step < 100; ++step) {
    const auto changes_a = a->poll_changes();
    const auto changes_b = b->poll_changes();
    const auto changes_c = c->poll_changes();
    BOOST_TEST_REQUIRE(changes_a.size() == changes_b.size());
    for (size_t i = 0; i < changes_a.size(); ++i) {
      BOOST_TEST_REQUIRE((changes_a[i].node == changes_b[i].node));
    }
    differs_from_other_seed |= changes_a.size() != changes_c.size();
  }
  BOOST_TEST(differs_from_other_seed);
}

BOOST_AUTO_TEST_CASE(churn_keeps_every_node_within_its_resources) {
  auto cluster = testing::simulated(8, 5.0, 100.0);
  bool joined = false;
  bool left = false;
  for (int step = 0; step < 300; ++step) {
    for (const auto& change : cluster->poll_changes()) {
      joined |= change.kind == model::NodeChangeKind::Add;
      left |= change.kind == model::NodeChangeKind::Remove;
    }
  }
  BOOST_TEST(joined);
  BOOST_TEST(left);
  for (const auto& node : cluster->list_nodes()) {
    BOOST_TEST(!model::check_node(node).has_value(), node.name);
  }
}

BOOST_AUTO_TEST_CASE(placements_apply_and_release) {
  auto cluster = testing::simulated(1, 0.0, 0.0);
  adapters::Placement placement{"p1", "sim-gpu-0", 4000, int64_t{8} << 30, {0, 1}, 1000, {}, {}};
  BOOST_TEST((cluster->apply(placement) == adapters::PlacementOutcome::Applied));
  BOOST_TEST((cluster->apply(placement) == adapters::PlacementOutcome::DuplicateId));
  adapters::Placement same_devices = placement;
  same_devices.id = "p2";
  BOOST_TEST((cluster->apply(same_devices) == adapters::PlacementOutcome::DoesNotFit));
  adapters::Placement elsewhere = placement;
  elsewhere.id = "p3";
  elsewhere.node = "nowhere";
  BOOST_TEST((cluster->apply(elsewhere) == adapters::PlacementOutcome::NoSuchNode));
  const auto changes = cluster->poll_changes();
  BOOST_TEST_REQUIRE(changes.size() == 1u);
  BOOST_TEST(changes[0].node.devices[1].allocated_milli == 1000);
  BOOST_TEST(changes[0].node.allocated_cpu_milli == 4000);
  BOOST_TEST(cluster->release("p1"));
  BOOST_TEST(!cluster->release("p1"));
  BOOST_TEST(cluster->poll_changes().back().node.allocated_cpu_milli == 0);
}

BOOST_AUTO_TEST_SUITE_END()
