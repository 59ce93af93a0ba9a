#include "model/node_labels.hpp"

#include <boost/test/unit_test.hpp>

#include <thread>
#include <vector>

using unisched::model::NodeLabels;

BOOST_AUTO_TEST_SUITE(node_labels)

BOOST_AUTO_TEST_CASE(equal_label_sets_share_one_map) {
  const NodeLabels a = NodeLabels::Map{{"zone", "z1"}, {"gpu", "a100"}};
  const NodeLabels b = NodeLabels::Map{{"gpu", "a100"}, {"zone", "z1"}};
  const NodeLabels c = NodeLabels::Map{{"gpu", "h100"}, {"zone", "z1"}};
  BOOST_TEST(&a.map() == &b.map());
  BOOST_TEST(&a.map() != &c.map());
  BOOST_TEST((a == b));
  BOOST_TEST((a != c));
  BOOST_TEST(NodeLabels().empty());
  BOOST_TEST(&NodeLabels().map() == &NodeLabels(NodeLabels::Map{}).map());
}

BOOST_AUTO_TEST_CASE(changing_one_nodes_labels_leaves_the_others_alone) {
  const NodeLabels shared = NodeLabels::Map{{"zone", "z1"}};
  NodeLabels changed = shared;
  changed.set("zone", "z2");
  changed.set("pool", "gpu");
  BOOST_TEST(shared.at("zone") == "z1");
  BOOST_TEST(changed.at("zone") == "z2");
  BOOST_TEST(changed.at("pool") == "gpu");
  BOOST_TEST(changed.size() == 2u);
  BOOST_TEST(&changed.map() == &NodeLabels(NodeLabels::Map{{"pool", "gpu"}, {"zone", "z2"}}).map());
}

BOOST_AUTO_TEST_CASE(a_set_no_node_carries_is_made_afresh) {
  const NodeLabels::Map labels{{"unisched.test/only-here", "1"}};
  for (int round = 0; round < 3; ++round) {  // each round's set is freed with its last holder
    const NodeLabels once = labels;
    BOOST_TEST(once.at("unisched.test/only-here") == "1");
  }
  const NodeLabels again = labels;
  const NodeLabels and_again = labels;
  BOOST_TEST(&again.map() == &and_again.map());
}

BOOST_AUTO_TEST_CASE(threads_interning_and_dropping_the_same_sets_agree) {
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &mismatches] {
      for (int i = 0; i < 20000; ++i) {
        const std::string value = std::to_string(i % 7);
        const NodeLabels a = NodeLabels::Map{{"k", value}};
        const NodeLabels b = NodeLabels::Map{{"k", value}};
        mismatches[static_cast<size_t>(t)] += &a.map() == &b.map() ? 0 : 1;
      }
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  for (const int count : mismatches) {
    BOOST_TEST(count == 0);
  }
}

BOOST_AUTO_TEST_SUITE_END()
