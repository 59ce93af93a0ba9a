#include "model/delta_coalescer.hpp"

#include <boost/test/unit_test.hpp>

using namespace unisched::model;

namespace {

NodeChange change(NodeChangeKind kind, const std::string& name, int64_t cpu = 0) {
  NodeChange c{kind, {}};
  c.node.name = name;
  c.node.allocated_cpu_milli = cpu;
  return c;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(delta_coalescer)

BOOST_AUTO_TEST_CASE(one_change_per_node_with_the_latest_state) {
  struct Case {
    const char* what;
    bool published;
    std::vector<NodeChangeKind> sequence;
    std::optional<NodeChangeKind> result;
  };
  using K = NodeChangeKind;
  const Case cases[] = {
      {"add then update", false, {K::Add, K::Update}, K::Add},
      {"add then remove", false, {K::Add, K::Remove}, std::nullopt},
      {"update then update", true, {K::Update, K::Update}, K::Update},
      {"update then remove", true, {K::Update, K::Remove}, K::Remove},
      {"remove then add", true, {K::Remove, K::Add}, K::Update},
      {"add, remove, add", false, {K::Add, K::Remove, K::Add}, K::Add},
  };
  for (const Case& c : cases) {
    DeltaCoalescer coalescer;
    int64_t cpu = 0;
    for (const K kind : c.sequence) {
      coalescer.record(change(kind, "n", ++cpu), c.published);
    }
    const auto changes = coalescer.take();
    BOOST_TEST(coalescer.empty());
    if (!c.result) {
      BOOST_TEST(changes.empty(), c.what);
      continue;
    }
    BOOST_TEST_REQUIRE(changes.size() == 1u, c.what);
    BOOST_TEST((changes[0].kind == *c.result), c.what);
    if (*c.result != K::Remove) {
      BOOST_TEST(changes[0].node.allocated_cpu_milli == cpu, c.what << ": latest state");
    }
  }
}

BOOST_AUTO_TEST_CASE(counts_what_it_folds) {
  DeltaCoalescer coalescer;
  coalescer.record(change(NodeChangeKind::Update, "a"), true);
  coalescer.record(change(NodeChangeKind::Update, "b"), true);
  coalescer.record(change(NodeChangeKind::Update, "a"), true);
  BOOST_TEST(coalescer.size() == 2u);
  BOOST_TEST(coalescer.coalesced() == 1u);
}

BOOST_AUTO_TEST_CASE(take_with_a_limit_leaves_the_rest_pending_in_name_order) {
  DeltaCoalescer pending;
  for (const char* name : {"d", "a", "c", "b", "e"}) {
    pending.record(change(NodeChangeKind::Add, name), false);
  }
  pending.record(change(NodeChangeKind::Update, "a", 5), false);
  const auto first = pending.take(2);
  BOOST_TEST_REQUIRE(first.size() == 2u);
  BOOST_TEST(first[0].node.name == "a");
  BOOST_TEST(first[0].node.allocated_cpu_milli == 5);
  BOOST_TEST(first[1].node.name == "b");
  BOOST_TEST(pending.size() == 3u);
  const auto rest = pending.take();
  BOOST_TEST_REQUIRE(rest.size() == 3u);
  BOOST_TEST(rest[0].node.name == "c");
  BOOST_TEST(rest[2].node.name == "e");
  BOOST_TEST(pending.empty());
}

BOOST_AUTO_TEST_SUITE_END()
