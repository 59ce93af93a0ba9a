#include "model/cluster_view.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <limits>
#include <map>
#include <set>

using namespace unisched::model;

namespace {

NodeState gpu_node(const std::string& name, int free_devices) {
  NodeState node;
  node.name = name;
  node.allocatable_cpu_milli = 8000;
  node.allocatable_memory_bytes = 1 << 30;
  node.max_pods = 10;
  for (int i = 0; i < 4; ++i) {
    Device device;
    device.model = "A100";
    device.memory_bytes = int64_t{80} << 30;
    device.interconnect = Interconnect::NVLink;
    device.allocated_milli = i < free_devices ? 0 : kWholeDeviceMilli;
    node.devices.push_back(device);
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

BOOST_AUTO_TEST_CASE(totals_and_indexes_after_many_updates_match_a_view_built_afresh) {
  // Updates that keep a node's devices (cpu, memory, pods, schedulable) take a shorter way
  // than those that change them; both must leave what a fresh view of the same nodes has. The
  // free indexes are kept in step once read (`read_early`), and built when first read if not.
  for (const auto& [indexes, read_early] :
       {std::pair{ViewIndexes::ForScheduling, true}, std::pair{ViewIndexes::ForScheduling, false},
        std::pair{ViewIndexes::NamesOnly, false}}) {
    ClusterView view(indexes);
    std::map<std::string, NodeState> nodes;
    for (int i = 0; i < 20; ++i) {
      nodes["n" + std::to_string(i)] = gpu_node("n" + std::to_string(i), i % 5);
    }
    std::vector<NodeChange> listing;
    for (const auto& [name, node] : nodes) {
      listing.push_back(add(node));
    }
    BOOST_TEST_REQUIRE(!view.apply(listing));
    BOOST_TEST(!view.free_indexes_built());
    if (read_early) {
      BOOST_TEST(view.nodes_with_free_cpu(0).size() == nodes.size());
      BOOST_TEST(view.free_indexes_built());
    }
    uint64_t random = 88172645463325252ull;
    for (int step = 0; step < 400; ++step) {
      random ^= random << 13;
      random ^= random >> 7;
      random ^= random << 17;
      NodeState& node = nodes["n" + std::to_string(random % 20)];
      node.allocated_cpu_milli = static_cast<int64_t>((random >> 8) % 9) * 1000;
      node.pod_count = static_cast<int32_t>((random >> 16) % 11);
      node.schedulable = (random >> 24) % 4 != 0;
      if ((random >> 32) % 3 == 0) {  // a third of the updates change a device
        Device& device = node.devices[(random >> 40) % node.devices.size()];
        device.allocated_milli = device.allocated_milli == 0 ? kWholeDeviceMilli : 0;
      }
      BOOST_TEST_REQUIRE(!view.apply({{NodeChangeKind::Update, node}}));
    }
    ClusterView fresh(indexes);
    std::vector<NodeState> states;
    for (const auto& [name, node] : nodes) {
      states.push_back(node);
    }
    BOOST_TEST_REQUIRE(!fresh.replace(states, {}));
    BOOST_TEST((view.totals() == fresh.totals()));
    BOOST_TEST((view.accelerators() == fresh.accelerators()));
    if (indexes == ViewIndexes::NamesOnly) {
      continue;
    }
    const auto names = [](const std::vector<const NodeState*>& found) {
      std::vector<std::string> in_order;
      for (const NodeState* node : found) {
        in_order.push_back(node->name);
      }
      return in_order;
    };
    for (const int64_t milli : {0, 1, 1000, 4500, 8000}) {
      BOOST_TEST(names(view.nodes_with_free_cpu(milli)) == names(fresh.nodes_with_free_cpu(milli)),
                 boost::test_tools::per_element());
    }
    for (int32_t count = 1; count <= 4; ++count) {
      BOOST_TEST(names(view.nodes_with_free_devices("A100", count)) ==
                     names(fresh.nodes_with_free_devices("A100", count)),
                 boost::test_tools::per_element());
    }
  }
}

BOOST_AUTO_TEST_CASE(nodes_of_equal_free_amounts_are_visited_in_name_order) {
  // Names that share long prefixes, differ past eight bytes of them, end where another goes on,
  // and, later, names that share less with the rest: the free-cpu and free-device indexes key
  // ties by a part of the name and must still give the names' own order.
  ClusterView view;
  std::map<std::string, int64_t> free_cpu;      // what the view should hold
  std::map<std::string, int64_t> free_devices;  // of model A100
  const auto place = [&](const std::string& name, int64_t allocated, int free,
                         NodeChangeKind kind) {
    NodeState node = gpu_node(name, free);
    node.allocated_cpu_milli = allocated;
    BOOST_TEST_REQUIRE(!view.apply({{kind, node}}), name);
    free_cpu[name] = node.allocatable_cpu_milli - allocated;
    free_devices[name] = free;
  };
  // Ascending free amount, then name: the order either index visits its nodes in.
  const auto expected = [](const std::map<std::string, int64_t>& free, int64_t at_least) {
    std::vector<std::pair<int64_t, std::string>> entries;
    for (const auto& [name, amount] : free) {
      if (amount >= at_least && amount > 0) {
        entries.emplace_back(amount, name);
      }
    }
    std::sort(entries.begin(), entries.end());
    std::vector<std::string> names;
    for (const auto& entry : entries) {
      names.push_back(entry.second);
    }
    return names;
  };
  const auto names = [](const std::vector<const NodeState*>& found) {
    std::vector<std::string> in_order;
    for (const NodeState* node : found) {
      in_order.push_back(node->name);
    }
    return in_order;
  };
  const auto check_order = [&](const ClusterView& held) {
    for (const int64_t milli : {1, 5000, 7000, 8000}) {
      BOOST_TEST(names(held.nodes_with_free_cpu(milli)) == expected(free_cpu, milli),
                 boost::test_tools::per_element());
    }
    for (int32_t count = 1; count <= 4; ++count) {
      BOOST_TEST(
          names(held.nodes_with_free_devices("A100", count)) == expected(free_devices, count),
          boost::test_tools::per_element());
    }
  };
  const std::vector<std::string> pool = {"pool-a-node-0000000002",  "pool-a-node-0000000010",
                                         "pool-a-node-00000000",    "pool-a-node-0000000001",
                                         "pool-a-node-00000000010", "pool-a-node-",
                                         "pool-a-node-1",           "pool-a-node-0000000001x"};
  for (size_t i = 0; i < pool.size(); ++i) {
    place(pool[i], i % 2 == 0 ? 1000 : 0, 1 + static_cast<int>(i % 3) % 2, NodeChangeKind::Add);
  }
  check_order(view);
  place("pool-b-node-1", 1000, 2, NodeChangeKind::Add);  // the shared prefix shortens
  place("a", 0, 1, NodeChangeKind::Add);                 // and is gone
  place("pool-a-node-0000000010", 1000, 2, NodeChangeKind::Update);
  place("pool-a-node-", 3000, 1, NodeChangeKind::Update);
  place("pool-a-node-00000000", 0, 0, NodeChangeKind::Update);
  BOOST_TEST_REQUIRE(!view.apply({{NodeChangeKind::Remove, gpu_node("pool-a-node-1", 0)}}));
  free_cpu.erase("pool-a-node-1");
  free_devices.erase("pool-a-node-1");
  check_order(view);
  const ClusterView copy = view;  // copied in the hash table's order
  check_order(copy);
}

BOOST_AUTO_TEST_CASE(each_node_keeps_the_revision_it_was_numbered_with) {
  ClusterView view;
  BOOST_TEST(!view.apply({add(gpu_node("a", 4)), add(gpu_node("b", 1))}));
  BOOST_TEST(view.revision_of("a") == 0u);  // not numbered yet
  view.set_revision("a", 3);
  view.set_revision("b", 5);
  view.set_revision("ghost", 9);  // not held: nothing
  BOOST_TEST(view.revision_of("a") == 3u);
  BOOST_TEST(view.revision_of("ghost") == 0u);
  // A changed node keeps its number until its holder numbers it again; a removed one is gone.
  BOOST_TEST(!view.apply(
      {{NodeChangeKind::Update, gpu_node("a", 2)}, {NodeChangeKind::Remove, gpu_node("b", 0)}}));
  BOOST_TEST(view.revision_of("a") == 3u);
  BOOST_TEST(view.revision_of("b") == 0u);
  BOOST_TEST(!view.apply({add(gpu_node("b", 1))}));
  BOOST_TEST(view.revision_of("b") == 0u);
  view.set_revision("b", 6);
  const ClusterView copy = view;  // a copy keeps the numbers, and hands over the states it holds
  std::map<std::string, uint64_t> revisions;
  copy.visit_held([&](const std::shared_ptr<const NodeState>& node, uint64_t revision) {
    BOOST_TEST(node == view.shared(node->name));
    revisions.emplace(node->name, revision);
  });
  BOOST_TEST((revisions == std::map<std::string, uint64_t>{{"a", 3}, {"b", 6}}));
}

// A state equal in value takes the held one's place, at the same revision, indexes unmoved;
// a different state, or one for a node not held, is not taken.
BOOST_AUTO_TEST_CASE(an_equal_state_is_held_in_place_of_the_one_held) {
  ClusterView view;
  BOOST_TEST(!view.apply({add(gpu_node("a", 4)), add(gpu_node("b", 1))}));
  view.set_revision("a", 3);
  const auto equal = std::make_shared<const NodeState>(gpu_node("a", 4));
  BOOST_TEST(view.hold_equal(equal));
  BOOST_TEST(view.shared("a") == equal);
  BOOST_TEST(view.revision_of("a") == 3u);
  BOOST_TEST(view.nodes_with_free_devices(Symbol("A100"), 4).size() == 1u);
  BOOST_TEST(view.totals().nodes == 2);
  const auto other = std::make_shared<const NodeState>(gpu_node("a", 2));
  BOOST_TEST(!view.hold_equal(other));
  BOOST_TEST(view.shared("a") == equal);
  BOOST_TEST(!view.hold_equal(std::make_shared<const NodeState>(gpu_node("ghost", 4))));
  BOOST_TEST(view.size() == 2u);
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
         ViewError::AmountOutOfRange, "negative memory");
  // Two nodes of nearly 2^63 bytes each would overflow the view's totals.
  NodeState huge = gpu_node("a", 4);
  huge.allocatable_memory_bytes = kMaxNodeAmount + 1;
  refuse({{NodeChangeKind::Update, busy}, {NodeChangeKind::Update, huge}},
         ViewError::AmountOutOfRange, "memory over the bound");
  refuse({{NodeChangeKind::Update, over}}, ViewError::OverAllocated, "cpu over allocatable");
  refuse({{NodeChangeKind::Update, bad_device}}, ViewError::InvalidDevice, "device over 1000");
  refuse({add(NodeState{})}, ViewError::EmptyName, "no name");
}

// A batch in name order is checked against the view alone; any other batch tracks the nodes it
// touched as it goes. Both read the same batch the same way.
BOOST_AUTO_TEST_CASE(a_batch_reads_the_same_in_name_order_and_out_of_it) {
  const std::vector<NodeChange> in_order = {
      add(gpu_node("a", 4)), {NodeChangeKind::Remove, gpu_node("b", 0)}, add(gpu_node("c", 1))};
  const std::vector<NodeChange> out_of_order = {in_order[2], in_order[0], in_order[1]};
  for (const auto* batch : {&in_order, &out_of_order}) {
    ClusterView view;
    BOOST_TEST_REQUIRE(!view.apply({add(gpu_node("b", 2))}));
    BOOST_TEST_REQUIRE(!view.apply(*batch));
    BOOST_TEST(view.size() == 2u);
    BOOST_TEST(view.find("b") == nullptr);
    BOOST_TEST(view.nodes_with_free_devices("A100", 1).size() == 2u);
    // A node removed and added back in one batch is one of the batch's own moves.
    NodeState back = gpu_node("a", 0);
    BOOST_TEST(!view.apply({{NodeChangeKind::Remove, back}, add(back)}));
    BOOST_TEST(view.find("a")->free_devices() == 0);
  }
  // In name order or not, a batch naming a node the view lacks is refused.
  ClusterView view;
  BOOST_TEST_REQUIRE(!view.apply({add(gpu_node("a", 4))}));
  const auto ordered = view.apply(
      {{NodeChangeKind::Update, gpu_node("a", 1)}, {NodeChangeKind::Update, gpu_node("z", 1)}});
  BOOST_TEST_REQUIRE(ordered.has_value());
  BOOST_TEST((ordered->error == ViewError::UnknownNode));
  BOOST_TEST(view.find("a")->free_devices() == 4);
}

// The centre's view keeps no scheduling indexes: it answers by name, in name order and by
// totals as a scheduler's does, and refuses the policies' queries rather than answer them wrong.
BOOST_AUTO_TEST_CASE(a_view_without_scheduling_indexes_answers_by_name_and_refuses_the_rest) {
  ClusterView centre(ViewIndexes::NamesOnly);
  ClusterView scheduler;
  const std::vector<NodeChange> listing = {add(gpu_node("a", 4)), add(gpu_node("b", 1)),
                                           add(gpu_node("c", 0))};
  NodeState busy = gpu_node("b", 0);
  busy.allocated_cpu_milli = 3000;
  const std::vector<NodeChange> changes = {{NodeChangeKind::Update, busy},
                                           {NodeChangeKind::Remove, gpu_node("c", 0)}};
  for (ClusterView* view : {&centre, &scheduler}) {
    BOOST_TEST_REQUIRE(!view->apply(listing));
    BOOST_TEST_REQUIRE(!view->apply(changes));
  }
  BOOST_TEST(!centre.scheduling_indexes());
  BOOST_TEST((centre.totals() == scheduler.totals()));
  BOOST_TEST((centre.accelerators() == scheduler.accelerators()));
  BOOST_TEST(centre.sorted_nodes().size() == 2u);
  BOOST_TEST(centre.find("b")->allocated_cpu_milli == 3000);
  const auto refuses = [](const ClusterView& view) {
    BOOST_CHECK_THROW(view.nodes_with_free_cpu(0), std::logic_error);
    BOOST_CHECK_THROW(view.nodes_with_free_devices("A100", 1), std::logic_error);
    BOOST_CHECK_THROW(view.models_with_free_devices(), std::logic_error);
    BOOST_CHECK_THROW(view.sample(7), std::logic_error);
  };
  refuses(centre);
  // A copy and a replaced view keep the indexes they were made with.
  refuses(ClusterView(centre));
  BOOST_TEST_REQUIRE(!centre.replace({gpu_node("d", 2)}, {}));
  refuses(centre);
  BOOST_TEST(centre.totals().nodes == 1);
  BOOST_TEST(scheduler.nodes_with_free_cpu(8000).size() == 1u);  // "a"; "b" has 5000m left
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

BOOST_AUTO_TEST_CASE(device_models_are_interned_symbols) {
  const Symbol a100 = std::string("A100");
  BOOST_TEST((a100 == Symbol("A100")));
  BOOST_TEST(&a100.str() == &Symbol("A100").str());  // one text for every copy
  BOOST_TEST((a100 != Symbol("H100")));
  BOOST_TEST(a100 == std::string("A100"));
  BOOST_TEST(Symbol().empty());
  BOOST_TEST((Symbol("A100") < Symbol("H100")));
}

BOOST_AUTO_TEST_CASE(a_copied_view_keeps_indexes_of_its_own_nodes) {
  ClusterView original;
  BOOST_TEST(!original.apply({add(gpu_node("a", 4)), add(gpu_node("b", 1))}));
  ClusterView copy = original;
  // Changing the original must not reach the copy's indexes (they point at the copy's nodes).
  BOOST_TEST(!original.apply({{NodeChangeKind::Remove, gpu_node("a", 0)}}));
  BOOST_TEST(original.nodes_with_free_devices("A100", 2).empty());
  const auto free = copy.nodes_with_free_devices("A100", 2);
  BOOST_TEST_REQUIRE(free.size() == 1u);
  BOOST_TEST(free[0] == copy.find("a"));
  BOOST_TEST(copy.nodes_with_free_cpu(8000).size() == 2u);
}

BOOST_AUTO_TEST_CASE(views_fed_shared_changes_hold_one_state_between_them) {
  const auto state = [](NodeState node) { return std::make_shared<const NodeState>(node); };
  const std::vector<SharedNodeChange> listing = {{NodeChangeKind::Add, state(gpu_node("a", 4)), 1},
                                                 {NodeChangeKind::Add, state(gpu_node("b", 1)), 1}};
  ClusterView centre;
  ClusterView follower;
  BOOST_TEST(!centre.apply(listing));
  BOOST_TEST(!follower.apply(listing));
  BOOST_TEST(follower.find("a") == centre.find("a"));  // one state, not a copy each
  BOOST_TEST(follower.revision_of("a") == 1u);
  // A change replaces the state: whoever still holds the old one reads it unchanged.
  const std::shared_ptr<const NodeState> before = centre.shared("a");
  const std::vector<SharedNodeChange> update = {
      {NodeChangeKind::Update, state(gpu_node("a", 0)), 2}};
  BOOST_TEST(!centre.apply(update));
  BOOST_TEST(before->free_devices() == 4);
  BOOST_TEST(centre.find("a")->free_devices() == 0);
  BOOST_TEST(follower.find("a") == before.get());  // not fed yet
  BOOST_TEST(follower.nodes_with_free_devices("A100", 4).size() == 1u);
  BOOST_TEST(!follower.apply(update));
  BOOST_TEST(follower.find("a") == centre.find("a"));
  BOOST_TEST(follower.revision_of("a") == 2u);
  BOOST_TEST(follower.nodes_with_free_devices("A100", 4).empty());
  BOOST_TEST(follower.nodes_with_free_devices("A100", 1).size() == 1u);
  BOOST_TEST(saturated_int64(follower.totals().allocatable_cpu_milli) == 16000);
  // Shared changes are checked as any other: a node added twice is refused, nothing changes.
  const auto refused = follower.apply({{NodeChangeKind::Add, state(gpu_node("b", 4)), 3}});
  BOOST_TEST_REQUIRE(refused.has_value());
  BOOST_TEST((refused->error == ViewError::DuplicateNode));
  BOOST_TEST(follower.find("b")->free_devices() == 1);
  BOOST_TEST(centre.shared("ghost") == nullptr);
}

BOOST_AUTO_TEST_CASE(visitors_walk_the_index_in_order_and_stop_when_told) {
  ClusterView view;
  BOOST_TEST(!view.apply({add(gpu_node("c", 4)), add(gpu_node("a", 2)), add(gpu_node("b", 4))}));
  std::vector<std::string> seen;
  view.visit_free_devices("A100", 2, [&](const NodeState& node) {
    seen.push_back(node.name);
    return seen.size() < 2;
  });
  // Two free devices before four; by name within a count.
  BOOST_TEST(seen == (std::vector<std::string>{"a", "b"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(samples_come_from_the_view_and_reach_every_node) {
  ClusterView view;
  BOOST_TEST(view.sample(7) == nullptr);
  std::vector<NodeChange> nodes;
  for (int i = 0; i < 50; ++i) {
    nodes.push_back(add(gpu_node("n" + std::to_string(i), 1)));
  }
  BOOST_TEST(!view.apply(std::move(nodes)));
  std::set<std::string> drawn;
  uint64_t random = 88172645463325252ull;
  for (int draw = 0; draw < 5000; ++draw) {
    random ^= random << 13;  // xorshift: any spread of numbers will do
    random ^= random >> 7;
    random ^= random << 17;
    const NodeState* node = view.sample(random);
    BOOST_TEST_REQUIRE(node != nullptr);
    BOOST_TEST_REQUIRE(node == view.find(node->name));
    drawn.insert(node->name);
  }
  BOOST_TEST(drawn.size() == 50u);
  // After removals (and in a copy), only the nodes left are drawn, every one of them.
  std::vector<NodeChange> removals;
  for (int i = 0; i < 50; i += 2) {
    removals.push_back({NodeChangeKind::Remove, gpu_node("n" + std::to_string(i), 1)});
  }
  BOOST_TEST(!view.apply(std::move(removals)));
  const ClusterView copy = view;
  for (const ClusterView* sampled : {static_cast<const ClusterView*>(&view), &copy}) {
    drawn.clear();
    for (uint64_t draw = 0; draw < 5000; ++draw) {
      const NodeState* node = sampled->sample(draw * 0x9e3779b97f4a7c15ull);
      BOOST_TEST_REQUIRE(node != nullptr);
      BOOST_TEST_REQUIRE(node == sampled->find(node->name));
      drawn.insert(node->name);
    }
    BOOST_TEST(drawn.size() == 25u);
    BOOST_TEST(drawn.count("n0") == 0u);
  }
}

BOOST_AUTO_TEST_CASE(sampling_slots_hold_the_current_states_after_every_kind_of_change) {
  ClusterView view;
  std::vector<NodeChange> nodes;
  for (int i = 0; i < 10; ++i) {
    nodes.push_back(add(gpu_node("n" + std::to_string(i), 2)));
  }
  BOOST_TEST_REQUIRE(!view.apply(std::move(nodes)));
  NodeState cpu_changed = gpu_node("n3", 2);  // the same devices: the free-cpu path
  cpu_changed.allocated_cpu_milli = 4000;
  NodeState devices_changed = gpu_node("n5", 4);  // the free-device index's path
  // Removed: the first, a middle and the last slot, whose nodes move into the freed ones.
  BOOST_TEST_REQUIRE(!view.apply({{NodeChangeKind::Update, cpu_changed},
                                  {NodeChangeKind::Update, devices_changed},
                                  {NodeChangeKind::Remove, gpu_node("n0", 2)},
                                  {NodeChangeKind::Remove, gpu_node("n4", 2)},
                                  {NodeChangeKind::Remove, gpu_node("n9", 2)}}));
  // Equal values, a new state: held in the node's place without reindexing.
  const auto equal_again = std::make_shared<const NodeState>(*view.find("n7"));
  BOOST_TEST_REQUIRE(view.hold_equal(equal_again));
  // Draws 0..size-1 land on each slot once: every held state, each the current one.
  std::set<const NodeState*> sampled;
  for (uint64_t draw = 0; draw < view.size(); ++draw) {
    const NodeState* node = view.sample(draw);
    BOOST_TEST_REQUIRE(node != nullptr);
    BOOST_TEST(node == view.find(node->name));
    sampled.insert(node);
  }
  BOOST_TEST(sampled.size() == 7u);
  BOOST_TEST(sampled.count(equal_again.get()) == 1u);
  BOOST_TEST(view.find("n3")->allocated_cpu_milli == 4000);
  BOOST_TEST(sampled.count(view.find("n3")) == 1u);
  BOOST_TEST(sampled.count(view.find("n5")) == 1u);
}

BOOST_AUTO_TEST_CASE(draws_taken_together_find_the_nodes_taken_one_by_one) {
  ClusterView small;
  ClusterView large;
  const ClusterView empty;
  std::vector<NodeChange> nodes;
  for (int i = 0; i < 300; ++i) {
    nodes.push_back(add(gpu_node("n" + std::to_string(i), i % 3)));
  }
  BOOST_TEST_REQUIRE(!large.apply(nodes));
  nodes.resize(3);
  BOOST_TEST_REQUIRE(!small.apply(nodes));
  // More draws than are taken at once, across three views, one of them empty.
  std::vector<SampleDraw> draws;
  for (uint64_t draw = 0; draw < 40; ++draw) {
    const ClusterView* view = draw % 5 == 0 ? &empty : draw % 2 == 0 ? &small : &large;
    draws.push_back({view, draw * 0x9e3779b97f4a7c15ull + 11});
  }
  std::vector<const NodeState*> found(draws.size(), &*large.find("n0"));
  ClusterView::sample_each(draws, absl::MakeSpan(found));
  for (size_t i = 0; i < draws.size(); ++i) {
    BOOST_TEST(found[i] == draws[i].view->sample(draws[i].random));
  }
  BOOST_TEST(found[0] == nullptr);  // from the empty view
  BOOST_TEST(found[1] != nullptr);
  // No room for every draw's node: refused, not written past the end.
  std::vector<const NodeState*> short_of_room(draws.size() - 1);
  BOOST_CHECK_THROW(ClusterView::sample_each(draws, absl::MakeSpan(short_of_room)),
                    std::invalid_argument);
  // The centre's view keeps no sampling slots.
  const ClusterView centre(ViewIndexes::NamesOnly);
  const SampleDraw of_centre[] = {{&centre, 1}};
  const NodeState* none[1] = {};
  BOOST_CHECK_THROW(ClusterView::sample_each(of_centre, absl::MakeSpan(none)), std::logic_error);
}

BOOST_AUTO_TEST_CASE(indexes_follow_updates_that_change_models_and_free_counts) {
  ClusterView view;
  BOOST_TEST(!view.apply({add(gpu_node("a", 4)), add(gpu_node("b", 2))}));
  BOOST_TEST(view.nodes_with_free_cpu(0).size() == 2u);  // read: kept in step from here on
  // "a" trades its A100s for H100s, one of them busy; "b" frees every device.
  NodeState a = gpu_node("a", 3);
  for (Device& device : a.devices) {
    device.model = "H100";
  }
  BOOST_TEST(
      !view.apply({{NodeChangeKind::Update, a}, {NodeChangeKind::Update, gpu_node("b", 4)}}));
  BOOST_TEST(view.nodes_with_free_devices("A100", 1).size() == 1u);
  BOOST_TEST(view.nodes_with_free_devices("A100", 4).size() == 1u);
  BOOST_TEST(view.nodes_with_free_devices("H100", 3).size() == 1u);
  BOOST_TEST(view.nodes_with_free_devices("H100", 4).empty());
  BOOST_TEST(view.accelerators().at("H100").free_devices == 3);
  // A node of ten models (more than a node's index keys hold) is moved all the same.
  NodeState many = gpu_node("m", 0);
  many.devices.clear();
  for (int i = 0; i < 10; ++i) {
    Device device;
    device.model = "M" + std::to_string(i);
    device.memory_bytes = 1;
    many.devices.push_back(device);
  }
  BOOST_TEST(!view.apply({add(many)}));
  many.devices[9].allocated_milli = kWholeDeviceMilli;
  many.allocated_cpu_milli = 1000;
  BOOST_TEST(!view.apply({{NodeChangeKind::Update, many}}));
  BOOST_TEST(view.nodes_with_free_devices("M9", 1).empty());
  BOOST_TEST(view.nodes_with_free_devices("M0", 1).size() == 1u);
  BOOST_TEST(view.nodes_with_free_cpu(7001).size() == 2u);  // a and b; m has 7000m left
  BOOST_TEST(view.nodes_with_free_cpu(7000).size() == 3u);
}

// Issue 66, item 4: totals of nodes each at the most a node may report filled an int64 at
// 131,072 nodes; past that they wrapped. They are summed in 128 bits, and shown saturated.
BOOST_AUTO_TEST_CASE(totals_of_the_largest_nodes_do_not_wrap) {
  ClusterView view(ViewIndexes::NamesOnly);
  std::vector<NodeChange> changes(131'073);
  for (size_t i = 0; i < changes.size(); ++i) {
    changes[i].kind = NodeChangeKind::Add;
    changes[i].node.name = "n" + std::to_string(i);
    changes[i].node.allocatable_memory_bytes = kMaxNodeAmount;
  }
  BOOST_TEST_REQUIRE(!view.apply(changes).has_value());
  BOOST_TEST((view.totals().allocatable_memory_bytes == int128_t{131'073} * kMaxNodeAmount));
  BOOST_TEST(saturated_int64(view.totals().allocatable_memory_bytes) ==
             std::numeric_limits<int64_t>::max());
}

BOOST_AUTO_TEST_SUITE_END()
