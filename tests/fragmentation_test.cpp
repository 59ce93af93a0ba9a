#include "policy/fragmentation.hpp"

#include <boost/test/unit_test.hpp>

#include "tests/policy_fixtures.hpp"

using namespace unisched;
using policy::PodShape;

namespace {

/// Four GPUs with 0, 500, 700 and 1000 milli idle.
model::NodeState part_used_node() {
  model::NodeState node = testing::node("n", 32000, 256, 4, model::Interconnect::PCIe, "V100");
  node.devices[0].allocated_milli = 1000;
  node.devices[1].allocated_milli = 500;
  node.devices[2].allocated_milli = 300;
  return node;
}

PodShape shape(int64_t cpu, int32_t gpus, int32_t milli, double weight = 0) {
  return PodShape{cpu, gpus, milli, {}, weight};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(fragmentation)

BOOST_AUTO_TEST_CASE(idle_gpu_that_typical_pods_cannot_use_counts_by_their_weight) {
  const model::NodeState node = part_used_node();
  BOOST_TEST(policy::idle_gpu_milli(node) == 2200);
  // No GPU: all 2200 idle is lost to it. A share of 600: only device 1 (500 idle) is too small.
  // Two whole GPUs: one wholly idle device is not enough, so all is lost. One whole GPU: the
  // 1200 idle on devices in part used.
  const std::vector<PodShape> shapes = {shape(1000, 0, 0, 0.25), shape(1000, 1, 600, 0.25),
                                        shape(1000, 2, 1000, 0.25), shape(1000, 1, 1000, 0.25)};
  BOOST_TEST(policy::node_fragmentation(node, shapes) ==
             0.25 * 2200 + 0.25 * 500 + 0.25 * 2200 + 0.25 * 1200);
}

BOOST_AUTO_TEST_CASE(a_shape_that_lacks_cpu_or_its_model_can_use_nothing) {
  model::NodeState node = part_used_node();
  BOOST_TEST(policy::shape_fits(node, shape(32000, 1, 1000)));
  BOOST_TEST(!policy::shape_fits(node, shape(32001, 1, 1000)));
  BOOST_TEST(policy::node_fragmentation(node, {shape(32001, 1, 1000, 1.0)}) == 2200);
  PodShape other_model = shape(1000, 1, 1000, 1.0);
  other_model.models = {"A100"};
  BOOST_TEST(!policy::shape_fits(node, other_model));
  BOOST_TEST(policy::node_fragmentation(node, {other_model}) == 2200);
  other_model.models = {"A100", "V100"};
  BOOST_TEST(policy::node_fragmentation(node, {other_model}) == 1200);
}

BOOST_AUTO_TEST_CASE(typical_shapes_cover_the_workload_by_frequency) {
  std::vector<PodShape> pods;
  for (int i = 0; i < 6; ++i) {
    pods.push_back(shape(1000, 1, 1000));
  }
  for (int i = 0; i < 3; ++i) {
    pods.push_back(shape(2000, 1, 500));
  }
  pods.push_back(shape(4000, 0, 0));
  const auto all = policy::typical_shapes(pods, 0.95);  // 9 of 10 is not yet 95%
  BOOST_TEST_REQUIRE(all.size() == 3u);
  BOOST_TEST(all[0].weight == 0.6);
  BOOST_TEST(all[2].cpu_milli == 4000);
  const auto most = policy::typical_shapes(pods, 0.9);
  BOOST_TEST_REQUIRE(most.size() == 2u);
  BOOST_TEST(most[0].weight == 6.0 / 9.0);
  BOOST_TEST(most[1].gpu_milli == 500);
  BOOST_TEST(most[1].weight == 3.0 / 9.0);
}

BOOST_AUTO_TEST_CASE(equally_frequent_shapes_go_larger_first) {
  // The paper's simulator breaks frequency ties by the larger cpu, then share: which shapes make
  // the cut depends on it.
  const std::vector<PodShape> pods = {shape(1000, 1, 500), shape(3000, 1, 200),
                                      shape(3000, 1, 700)};
  const auto ordered = policy::typical_shapes(pods, 0.5);
  BOOST_TEST_REQUIRE(ordered.size() == 2u);
  BOOST_TEST(ordered[0].gpu_milli == 700);
  BOOST_TEST(ordered[1].gpu_milli == 200);
}

BOOST_AUTO_TEST_CASE(fragmentation_after_a_placement_needs_no_copy_of_the_node) {
  const model::NodeState node = part_used_node();
  const std::vector<PodShape> shapes = {shape(1000, 0, 0, 0.2), shape(1000, 1, 600, 0.3),
                                        shape(8000, 1, 1000, 0.5)};
  model::NodeState placed = node;
  placed.allocated_cpu_milli += 25000;  // too little cpu left for the 8-core shape
  placed.devices[2].allocated_milli += 400;
  BOOST_TEST(policy::fragmentation_after(node, shapes, 25000, {2}, {400}) ==
             policy::node_fragmentation(placed, shapes));
  BOOST_TEST(policy::fragmentation_after(node, shapes, 0, {}, {}) ==
             policy::node_fragmentation(node, shapes));
}

BOOST_AUTO_TEST_SUITE_END()
