#include "model/cluster_view.hpp"

#include <boost/test/unit_test.hpp>

using namespace unisched::model;

namespace {

NodeState gpu_node(const std::string& name, int free_devices) {
  NodeState node;
  node.name = name;
  node.allocatable_cpu_milli = 8000;
  node.allocatable_memory_bytes = 1 << 30;
  node.max_pods = 10;
  for (int i = 0; i < 4; ++i) {
    node.devices.push_back(Device{AcceleratorType::GPU, "A100", int64_t{80} << 30, 0,
                                  Interconnect::NVLink, i < free_devices ? 0 : kWholeDeviceMilli});
  }
  return node;
}

NodeChange add(NodeState node) {
  return {NodeChangeKind::Add, std::move(node)};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cluster_view)

BOOST_AUTO_TEST_CASE(aggregates_and_free_device_index_follow_changes) {
  ClusterView view;
  BOOST_TEST(!view.apply({add(gpu_node("a", 4)), add(gpu_node("b", 1)), add(gpu_node("c", 0))}));
  BOOST_TEST(view.totals().nodes == 3);
  BOOST_TEST(view.accelerators().at("A100").devices == 12);
  BOOST_TEST(view.accelerators().at("A100").free_devices == 5);
  BOOST_TEST(view.nodes_with_free_devices("A100", 2).size() == 1u);
  BOOST_TEST(view.nodes_with_free_devices("A100", 1).size() == 2u);
  BOOST_TEST(view.nodes_with_free_devices("H100", 1).empty());
  BOOST_TEST(view.nodes_with_free_cpu(8000).size() == 3u);
  BOOST_TEST(view.nodes_with_free_cpu(8001).empty());

  BOOST_TEST(!view.apply(
      {{NodeChangeKind::Update, gpu_node("a", 0)}, {NodeChangeKind::Remove, gpu_node("b", 0)}}));
  BOOST_TEST(view.totals().nodes == 2);
  BOOST_TEST(view.accelerators().at("A100").free_devices == 0);
  BOOST_TEST(view.nodes_with_free_devices("A100", 1).empty());
  NodeState busy = gpu_node("c", 0);
  busy.allocated_cpu_milli = 5000;
  BOOST_TEST(!view.apply({{NodeChangeKind::Update, busy}}));
  BOOST_TEST(view.nodes_with_free_cpu(4000).size() == 1u);  // "a" only; "c" has 3000m left
  BOOST_TEST(view.nodes_with_free_cpu(3000).size() == 2u);
  BOOST_TEST(!view.apply(
      {{NodeChangeKind::Remove, gpu_node("a", 0)}, {NodeChangeKind::Remove, gpu_node("c", 0)}}));
  BOOST_TEST(view.accelerators().empty());
  BOOST_TEST((view.totals() == ClusterTotals{}));
}

BOOST_AUTO_TEST_CASE(inconsistent_changes_are_refused_and_change_nothing) {
  ClusterView view;
  BOOST_TEST(!view.apply({add(gpu_node("a", 4))}));
  const auto refuse = [&](std::vector<NodeChange> changes, ViewError expected, const char* what) {
    const auto totals = view.totals();
    const auto problem = view.apply(changes);
    BOOST_TEST_REQUIRE(problem.has_value(), what);
    BOOST_TEST((problem->error == expected), what << ": " << problem->to_string());
    BOOST_TEST((view.totals() == totals), what << ": the view changed");
    BOOST_TEST(view.size() == 1u, what);
    BOOST_TEST(view.find("a")->allocated_cpu_milli == 0, what);
  };
  NodeState negative = gpu_node("a", 4);
  negative.allocated_memory_bytes = -1;
  NodeState over = gpu_node("a", 4);
  over.allocated_cpu_milli = 9000;
  NodeState bad_device = gpu_node("a", 4);
  bad_device.devices[0].allocated_milli = 1001;
  NodeState busy = gpu_node("a", 4);
  busy.allocated_cpu_milli = 100;
  // Each batch starts with a valid change that must not survive the refusal.
  refuse({{NodeChangeKind::Update, busy}, {NodeChangeKind::Remove, gpu_node("ghost", 0)}},
         ViewError::UnknownNode, "removal of an unknown node");
  refuse({{NodeChangeKind::Update, busy}, {NodeChangeKind::Update, gpu_node("ghost", 0)}},
         ViewError::UnknownNode, "update of an unknown node");
  refuse({{NodeChangeKind::Update, busy}, add(gpu_node("a", 4))}, ViewError::DuplicateNode,
         "addition of a present node");
  refuse({add(gpu_node("b", 4)), add(gpu_node("b", 4))}, ViewError::DuplicateNode,
         "the same node added twice");
  refuse({{NodeChangeKind::Update, busy}, {NodeChangeKind::Update, negative}},
         ViewError::NegativeValue, "negative memory");
  refuse({{NodeChangeKind::Update, over}}, ViewError::OverAllocated, "cpu over allocatable");
  refuse({{NodeChangeKind::Update, bad_device}}, ViewError::InvalidDevice, "device over 1000");
  refuse({add(NodeState{})}, ViewError::EmptyName, "no name");
}

BOOST_AUTO_TEST_CASE(replace_is_all_or_nothing) {
  ClusterView view;
  BOOST_TEST(!view.apply({add(gpu_node("a", 4))}));
  NodeState broken = gpu_node("b", 4);
  broken.max_pods = -3;
  BOOST_TEST(view.replace({gpu_node("x", 1), broken}, {}).has_value());
  BOOST_TEST(view.find("a") != nullptr);
  BOOST_TEST(view.find("x") == nullptr);
  BOOST_TEST(!view.replace({gpu_node("x", 1)}, {}).has_value());
  BOOST_TEST(view.find("a") == nullptr);
  BOOST_TEST(view.accelerators().at("A100").free_devices == 1);
}

BOOST_AUTO_TEST_SUITE_END()
