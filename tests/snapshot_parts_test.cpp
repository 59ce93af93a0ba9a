// Snapshots in parts (messages/snapshot_parts): split, collected in order, pulled part by part.
#include <google/protobuf/util/message_differencer.h>

#include <boost/test/unit_test.hpp>

#include "messages/snapshot_parts.hpp"

using namespace unisched;
using messages::SnapshotAssembler;
using messages::SnapshotParts;
using messages::split_snapshot;

namespace {

v1::ClusterSnapshot snapshot_of(int nodes, uint64_t version = 7) {
  v1::ClusterSnapshot snapshot;
  snapshot.set_cluster_id("big");
  snapshot.set_epoch(3);
  snapshot.set_version(version);
  snapshot.set_agent_version(5);
  for (int i = 0; i < nodes; ++i) {
    auto* node = snapshot.add_nodes();
    node->set_name("n" + std::to_string(i));
    (*snapshot.mutable_node_revisions())[node->name()] = 100 + i;
  }
  snapshot.add_applied_placements("train/0");
  snapshot.mutable_resources()->set_bandwidth_bps(10);
  return snapshot;
}

/// Pulls every later part of the snapshot `kept` started with `first`, as a receiver does; the
/// whole snapshot collected.
template <class Kept, class Assembler, class Part>
typename Assembler::Whole pull_the_rest(const Kept& kept, Assembler& assembler, const Part& first) {
  BOOST_TEST_REQUIRE(!assembler.add(first).value().has_value());
  while (assembler.collecting()) {
    const auto part = kept.part(assembler.next_request());
    BOOST_TEST_REQUIRE(part.has_value());
    auto taken = assembler.add(part.value());
    BOOST_TEST_REQUIRE(taken.has_value());
    if (taken.value()) {
      return std::move(*taken.value());
    }
  }
  BOOST_FAIL("the parts never completed the snapshot");
  return {};
}

/// Feeds every part; the whole snapshot the last one completes.
v1::ClusterSnapshot collect(SnapshotAssembler& assembler, std::vector<v1::ClusterSnapshot> parts) {
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    const auto taken = assembler.add(parts[i]);
    BOOST_TEST_REQUIRE(taken.has_value());
    BOOST_TEST_REQUIRE(!taken.value().has_value());
  }
  auto last = assembler.add(parts.back());
  BOOST_TEST_REQUIRE(last.has_value());
  BOOST_TEST_REQUIRE(last.value().has_value());
  return *last.value();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(snapshot_parts)

BOOST_AUTO_TEST_CASE(a_snapshot_that_fits_travels_whole) {
  const auto parts = split_snapshot(snapshot_of(3), {3});
  BOOST_TEST_REQUIRE(parts.size() == 1u);
  BOOST_TEST(parts[0].parts() == 0u);
  SnapshotAssembler assembler;
  BOOST_TEST(collect(assembler, parts).nodes_size() == 3);
}

BOOST_AUTO_TEST_CASE(parts_carry_their_nodes_and_come_back_whole) {
  const v1::ClusterSnapshot whole = snapshot_of(7);
  const auto parts = split_snapshot(whole, {3});
  BOOST_TEST_REQUIRE(parts.size() == 3u);
  for (uint32_t i = 0; i < 3; ++i) {
    BOOST_TEST(parts[i].part() == i);
    BOOST_TEST(parts[i].parts() == 3u);
    BOOST_TEST(parts[i].version() == 7u);
    BOOST_TEST(parts[i].node_revisions_size() == parts[i].nodes_size());
  }
  BOOST_TEST(parts[2].nodes_size() == 1);
  BOOST_TEST(parts[0].applied_placements_size() == 1);  // what is not per node: in part 0 only
  BOOST_TEST(parts[1].applied_placements_size() == 0);
  SnapshotAssembler assembler;
  const v1::ClusterSnapshot again = collect(assembler, parts);
  BOOST_TEST(google::protobuf::util::MessageDifferencer::Equals(again, whole));
  BOOST_TEST(!assembler.collecting());
}

BOOST_AUTO_TEST_CASE(a_repeated_part_is_ignored_and_a_stray_one_refused_by_name) {
  const auto parts = split_snapshot(snapshot_of(7), {3});
  SnapshotAssembler assembler;
  BOOST_TEST(!assembler.add(parts[0]).value().has_value());
  BOOST_TEST(!assembler.add(parts[0]).value().has_value());  // part 0 again starts over
  BOOST_TEST(!assembler.add(parts[1]).value().has_value());
  BOOST_TEST(!assembler.add(parts[1]).value().has_value());  // a resent part: nothing changes
  BOOST_TEST(assembler.next_request().part() == 2u);
  BOOST_TEST(assembler.next_request().version() == 7u);
  const auto other = split_snapshot(snapshot_of(7, 8), {3});
  const auto stray = assembler.add(other[2]);
  BOOST_TEST_REQUIRE(!stray.has_value());
  BOOST_TEST(stray.error() ==
             "part 2 of 3 at version 8: expected part 2 of the snapshot at version 7");
  BOOST_TEST(!assembler.collecting());  // dropped: the receiver starts again
  const auto orphan = assembler.add(parts[2]);
  BOOST_TEST_REQUIRE(!orphan.has_value());
  BOOST_TEST(orphan.error().find("expected part 0") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(parts_out_of_bounds_are_refused) {
  auto part = snapshot_of(1);
  part.set_part(3);
  part.set_parts(3);
  SnapshotAssembler assembler;
  BOOST_TEST(!assembler.add(part).has_value());
  part.set_part(0);
  part.set_parts(messages::kMaxSnapshotParts + 1);
  BOOST_TEST(assembler.add(part).error().find("at most 1000 parts") != std::string::npos);
  auto crowded = snapshot_of(static_cast<int>(messages::kMaxNodesPerSnapshotPart) + 1);
  crowded.set_parts(2);
  BOOST_TEST(!assembler.add(crowded).has_value());
  auto numbered_whole = snapshot_of(1);
  numbered_whole.set_part(1);
  BOOST_TEST(assembler.add(numbered_whole).error() ==
             "part: Invalid value: 1: a whole snapshot (parts 0) has no part number");
}

BOOST_AUTO_TEST_CASE(a_sender_answers_pulls_of_later_parts_while_it_keeps_them) {
  SnapshotParts kept;
  const auto first = kept.start(snapshot_of(25'000));  // 10,000 nodes per part
  BOOST_TEST(first.part() == 0u);
  BOOST_TEST(first.parts() == 3u);
  SnapshotAssembler assembler;
  BOOST_TEST(pull_the_rest(kept, assembler, first).nodes_size() == 25'000);
  v1::SnapshotRequest gone;
  gone.set_part(1);
  gone.set_version(6);
  BOOST_TEST(kept.part(gone).error() ==
             "part 1 of the snapshot at version 6 is no longer kept: pull again from part 0");
  kept.start(snapshot_of(2));  // a snapshot that fits replaces the parts kept
  gone.set_version(7);
  BOOST_TEST(!kept.part(gone).has_value());
}

// Nodes with many devices or labels fill a part by their bytes long before its node count: 8
// nodes of 10 MB made one 174 MB message that the 64 MiB guard refused, and the agent
// reconnected for ever (issue 66, item 5).
BOOST_AUTO_TEST_CASE(parts_are_bounded_by_bytes_as_well_as_by_nodes) {
  v1::ClusterSnapshot whole = snapshot_of(8);
  for (auto& node : *whole.mutable_nodes()) {
    (*node.mutable_labels())["unisched.io/blob"] = std::string(6 << 20, 'x');
  }
  const auto parts = split_snapshot(whole);
  BOOST_TEST(parts.size() == 4u);  // two 6 MB nodes to each 16 MiB part
  for (const auto& part : parts) {
    BOOST_TEST(part.ByteSizeLong() <= messages::kMaxSnapshotPartBytes + 1024);
  }
  SnapshotAssembler assembler;
  const v1::ClusterSnapshot again = collect(assembler, parts);
  BOOST_TEST(again.nodes_size() == 8);
  BOOST_TEST(again.nodes(7).name() == "n7");
  // The agent's own form is split by the same bytes.
  const auto read = messages::read_snapshot(whole);
  BOOST_TEST_REQUIRE(read.problem.empty());
  BOOST_TEST(messages::split_into_parts<messages::AgentSnapshot>(*read.snapshot).size() == 4u);
  // A node larger than a part travels alone rather than not at all.
  (*whole.mutable_nodes(0)->mutable_labels())["unisched.io/blob"] = std::string(20 << 20, 'x');
  BOOST_TEST(split_snapshot(whole).size() == 5u);
}

// An agent's snapshot in one process: its parts share the agent's node states, and the parts
// collected give back those very states, with the same rules as the schema's form.
BOOST_AUTO_TEST_CASE(an_agent_snapshot_in_parts_shares_its_node_states) {
  const auto read = messages::read_snapshot(snapshot_of(7));
  BOOST_TEST_REQUIRE(read.problem.empty());
  const model::ViewSnapshot& whole = *read.snapshot;
  const auto parts = messages::split_into_parts<messages::AgentSnapshot>(whole, {3});
  BOOST_TEST_REQUIRE(parts.size() == 3u);
  BOOST_TEST(parts[0].snapshot->nodes.at(0) == whole.nodes.at(0));  // the state, not a copy
  BOOST_TEST(parts[2].snapshot->nodes.size() == 1u);
  BOOST_TEST(parts[1].snapshot->node_revisions.size() == 3u);
  BOOST_TEST(parts[0].snapshot->applied_placements.size() == 1u);  // part 0 only
  BOOST_TEST(parts[1].snapshot->applied_placements.empty());
  messages::AgentSnapshotAssembler assembler;
  BOOST_TEST(!assembler.add(parts[0]).value().has_value());
  BOOST_TEST(!assembler.add(parts[0]).value().has_value());  // part 0 again starts over
  BOOST_TEST(!assembler.add(parts[1]).value().has_value());
  BOOST_TEST(assembler.next_request().part() == 2u);
  const auto last = assembler.add(parts[2]);
  BOOST_TEST_REQUIRE((last.has_value() && last.value().has_value()));
  const model::ViewSnapshot& again = *last.value();
  BOOST_TEST_REQUIRE(again.nodes.size() == 7u);
  for (size_t i = 0; i < 7; ++i) {
    BOOST_TEST(again.nodes[i] == whole.nodes[i]);
  }
  BOOST_TEST((again.node_revisions == whole.node_revisions));
  BOOST_TEST(again.applied_placements == whole.applied_placements);
  BOOST_TEST(again.version == 7u);

  // A part read with a problem is refused with its reason, and the collection is dropped.
  BOOST_TEST(!assembler.add(parts[0]).value().has_value());
  messages::AgentSnapshot malformed = parts[1];
  malformed.problem = "nodes[0].name: Required value";
  const auto refused = assembler.add(malformed);
  BOOST_TEST_REQUIRE(!refused.has_value());
  BOOST_TEST(refused.error() == "nodes[0].name: Required value");
  BOOST_TEST(!assembler.collecting());
}

BOOST_AUTO_TEST_CASE(an_agent_snapshot_sender_answers_pulls_of_later_parts) {
  const auto read = messages::read_snapshot(snapshot_of(25'000));
  messages::AgentSnapshotParts kept;
  const auto first = kept.start(*read.snapshot);
  BOOST_TEST(first.parts == 3u);
  messages::AgentSnapshotAssembler assembler;
  const model::ViewSnapshot whole = pull_the_rest(kept, assembler, first);
  BOOST_TEST(whole.nodes.size() == 25'000u);
  BOOST_TEST(whole.nodes.back() == read.snapshot->nodes.back());  // the state itself
}

BOOST_AUTO_TEST_SUITE_END()
