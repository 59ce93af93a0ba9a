// A node whose usage alone changed travels as its usage (NodeDelta USAGE): the agent marks such
// changes, a link carries a few bytes of them, and the centre puts them on the state the agent
// sent before, under the reservations it holds on top.
#include <boost/test/unit_test.hpp>

#include <algorithm>

#include "messages/agent_update.hpp"
#include "messages/convert.hpp"
#include "messages/node_wire.hpp"
#include "messages/view_feed.hpp"
#include "model/node_usage.hpp"
#include "model/view_revision.hpp"
#include "tests/commit_fixtures.hpp"

using namespace unisched;
using actors::AckStatus;
using testing::accepted_commit;
using testing::Pair;
using testing::reservation;

namespace {

/// The agent's next update, which must exist.
model::ViewUpdate next_update(Pair& pair) {
  pair.agent.observe();
  std::optional<model::ViewUpdate> update = pair.agent.next_update();
  BOOST_TEST_REQUIRE(update.has_value());
  return *update;
}

const model::SharedNodeChange& change_of(const model::ViewUpdate& update, const std::string& node) {
  const auto found = std::find_if(
      update.changes.begin(), update.changes.end(),
      [&](const model::SharedNodeChange& change) { return change.node->name == node; });
  BOOST_TEST_REQUIRE((found != update.changes.end()), node);
  return *found;
}

/// `update` as it arrives across a link.
model::ViewUpdate across_a_link(const model::ViewUpdate& update) {
  std::string bytes;
  messages::write_update_bytes(update, bytes);
  messages::AgentUpdate decoded;
  BOOST_TEST_REQUIRE(messages::decode_update(bytes, "", decoded));
  BOOST_TEST_REQUIRE(decoded.problem.empty(), decoded.problem);
  return *decoded.update;
}

/// An update of `pair`'s agent stream carrying only `usage`.
model::ViewUpdate usage_update(const Pair& pair, model::NodeUsage usage) {
  model::ViewUpdate update;
  update.cluster_id = "sim";
  update.epoch = 1;
  update.base_version = pair.centre.position().version;
  update.version = update.base_version + 1;
  update.usage_changes.push_back(std::move(usage));
  return update;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(node_usage)

BOOST_AUTO_TEST_CASE(only_what_pods_use_may_differ_for_a_change_to_be_usage) {
  Pair pair;
  const model::NodeState node = *pair.centre.view().find("sim-gpu-0");
  BOOST_TEST_REQUIRE(!node.devices.empty());
  model::NodeState used = node;
  used.allocated_cpu_milli += 500;
  used.pod_count += 1;
  used.devices.back().allocated_milli = 250;
  used.host_ports_in_use = {8080};
  BOOST_TEST(model::only_usage_differs(node, used));
  model::NodeState back = node;
  BOOST_TEST(!model::apply_usage(model::usage_of(used), back).has_value());
  BOOST_TEST((back == used));

  model::NodeState relabelled = used;
  relabelled.labels = model::NodeLabels{{"tier", "spot"}};
  model::NodeState cordoned = used;
  cordoned.schedulable = !used.schedulable;
  model::NodeState other_device = used;
  other_device.devices.back().memory_bytes /= 2;
  model::NodeState fewer_devices = used;
  fewer_devices.devices.pop_back();
  for (const model::NodeState* changed : {&relabelled, &cordoned, &other_device, &fewer_devices}) {
    BOOST_TEST(!model::only_usage_differs(node, *changed));
  }
  BOOST_TEST(model::apply_usage(model::usage_of(fewer_devices), back).value() ==
             "usage of node \"sim-gpu-0\" gives " + std::to_string(node.devices.size() - 1) +
                 " device shares, the node has " + std::to_string(node.devices.size()) +
                 " devices");
  BOOST_TEST((back == used));  // left as it was
  model::NodeUsage too_shared = model::usage_of(used);
  too_shared.device_allocated_milli.back() = 40000;  // past what a device's 16 bits hold
  BOOST_TEST(model::apply_usage(too_shared, back).value() ==
             "usage of node \"sim-gpu-0\" gives device " + std::to_string(node.devices.size() - 1) +
                 " 40000 milli, not between 0 and 32767");
  BOOST_TEST((back == used));
}

BOOST_AUTO_TEST_CASE(a_placement_carried_out_crosses_a_link_as_usage_and_reads_the_same) {
  Pair pair;
  const actors::Commit commit = accepted_commit(pair, {reservation("a", "sim-gpu-0", 1000, {0})});
  pair.agent.carry_out(commit.reservations);
  const model::ViewUpdate update = next_update(pair);
  const model::SharedNodeChange& sent = change_of(update, "sim-gpu-0");
  BOOST_TEST(sent.usage_only);

  std::string usage_bytes;
  messages::write_update_bytes(update, usage_bytes);
  model::ViewUpdate whole = update;
  for (model::SharedNodeChange& change : whole.changes) {
    change.usage_only = false;
  }
  std::string whole_bytes;
  messages::write_update_bytes(whole, whole_bytes);
  BOOST_TEST(usage_bytes.size() < whole_bytes.size());
  // What the generated code writes and reads, and the direct reader too.
  BOOST_TEST(usage_bytes == messages::to_proto(update).SerializeAsString());
  const model::ViewUpdate arrived = across_a_link(update);
  BOOST_TEST(arrived.changes.empty());
  BOOST_TEST_REQUIRE(arrived.usage_changes.size() == 1u);
  BOOST_TEST((arrived.usage_changes[0] == model::usage_of(*sent.node)));

  BOOST_TEST_REQUIRE((pair.centre.on_update(arrived).status == AckStatus::Applied));
  BOOST_TEST(pair.centre.reservations() == 0u);
  BOOST_TEST((*pair.centre.view().find("sim-gpu-0") == *sent.node));
}

BOOST_AUTO_TEST_CASE(usage_goes_on_the_agents_state_under_the_reservations_held) {
  Pair pair;
  const model::NodeState truth = *pair.centre.view().find("sim-gpu-1");
  accepted_commit(pair, {reservation("held", "sim-gpu-1", 1000)});
  // A pod the centre did not place starts there: the agent sends the node's new usage.
  model::NodeUsage usage = model::usage_of(truth);
  usage.allocated_cpu_milli += 300;
  usage.pod_count += 1;
  const auto outcome = pair.centre.on_update(across_a_link(usage_update(pair, usage)));
  BOOST_TEST_REQUIRE((outcome.status == AckStatus::Applied), outcome.error);
  const model::NodeState& seen = *pair.centre.view().find("sim-gpu-1");
  BOOST_TEST(seen.allocated_cpu_milli == truth.allocated_cpu_milli + 300 + 1000);
  BOOST_TEST(seen.pod_count == truth.pod_count + 2);
  BOOST_TEST(pair.centre.reservations() == 1u);
  // Released, the node is the agent's state with the new usage.
  pair.centre.release({"held"});
  BOOST_TEST(pair.centre.view().find("sim-gpu-1")->allocated_cpu_milli ==
             truth.allocated_cpu_milli + 300);
}

BOOST_AUTO_TEST_CASE(usage_of_an_unknown_node_or_the_wrong_devices_is_refused_whole) {
  Pair pair;
  const model::NodeState before = *pair.centre.view().find("sim-gpu-0");
  const uint64_t version = pair.centre.position().version;
  model::NodeUsage ghost = model::usage_of(before);
  ghost.name = "ghost";
  model::NodeUsage short_of_devices = model::usage_of(before);
  short_of_devices.device_allocated_milli.pop_back();
  const std::pair<model::NodeUsage, std::string> cases[] = {
      {ghost,
       "node_deltas: usage of node \"ghost\": cluster \"sim\" has no such node (send its whole "
       "state with ADD)"},
      {short_of_devices, "node_deltas: usage of node \"sim-gpu-0\" gives " +
                             std::to_string(before.devices.size() - 1) +
                             " device shares, the node has " +
                             std::to_string(before.devices.size()) + " devices"},
  };
  for (const auto& [usage, reason] : cases) {
    model::ViewUpdate update = usage_update(pair, usage);
    model::NodeState changed = before;  // a good change beside it is not applied either
    changed.name = "sim-gpu-1";
    changed.allocated_cpu_milli = 7;
    update.changes.push_back(model::share({model::NodeChangeKind::Update, changed}));
    const auto outcome = pair.centre.on_update(across_a_link(update));
    BOOST_TEST((outcome.status == AckStatus::Rejected));
    BOOST_TEST(outcome.error == reason);
    BOOST_TEST(pair.centre.position().version == version);
    BOOST_TEST(pair.centre.view().find("sim-gpu-1")->allocated_cpu_milli != 7);
    BOOST_TEST((*pair.centre.view().find("sim-gpu-0") == before));
  }
  // A node named twice, as a state and as a usage: refused too.
  model::ViewUpdate twice = usage_update(pair, model::usage_of(before));
  twice.changes.push_back(model::share({model::NodeChangeKind::Update, before}));
  BOOST_TEST(pair.centre.on_update(twice).error ==
             "node \"sim-gpu-0\" changes twice in one update");
}

BOOST_AUTO_TEST_CASE(malformed_usage_deltas_are_refused_with_the_field_named) {
  v1::IncrementalUpdate message;
  message.set_cluster_id("sim");
  v1::NodeDelta& usage_with_node = *message.add_node_deltas();
  usage_with_node.set_op(v1::NodeDelta::USAGE);
  usage_with_node.mutable_usage()->set_name("n1");
  usage_with_node.mutable_node()->set_name("n1");
  v1::IncrementalUpdate update_with_usage;
  v1::NodeDelta& delta = *update_with_usage.add_node_deltas();
  delta.set_op(v1::NodeDelta::UPDATE);
  delta.mutable_node()->set_name("n1");
  delta.mutable_usage()->set_name("n1");
  v1::IncrementalUpdate unknown_op;
  unknown_op.add_node_deltas()->set_op(static_cast<v1::NodeDelta::Op>(9));
  const std::pair<const v1::IncrementalUpdate*, std::string> cases[] = {
      {&message,
       "node_deltas[0].node: must be absent with op USAGE (the node's usage is in .usage)"},
      {&update_with_usage, "node_deltas[0].usage: must be absent with op UPDATE"},
      {&unknown_op, "node_deltas[0].op: must be ADD, UPDATE, REMOVE or USAGE, got 9"},
  };
  for (const auto& [wire, reason] : cases) {
    const std::string bytes = wire->SerializeAsString();
    BOOST_TEST(!messages::read_update_bytes(bytes).has_value());
    messages::AgentUpdate decoded;
    BOOST_TEST_REQUIRE(messages::decode_update(bytes, "", decoded));
    BOOST_TEST(decoded.problem == reason);
  }
  // A usage delta without its usage reads, both ways, as a usage of no node (refused where it
  // is put), and device shares one by one read as packed ones.
  v1::IncrementalUpdate bare;
  bare.add_node_deltas()->set_op(v1::NodeDelta::USAGE);
  std::string bytes = bare.SerializeAsString();
  const auto direct = messages::read_update_bytes(bytes);
  BOOST_TEST_REQUIRE(direct.has_value());
  BOOST_TEST_REQUIRE(direct->usage_changes.size() == 1u);
  BOOST_TEST(direct->usage_changes[0].name.empty());
  const std::string unpacked_shares("\x1a\x08\x0a\x02n1\x28\x05\x28\x06", 10);  // usage
  bytes = "\x2a" + std::string(1, static_cast<char>(unpacked_shares.size() + 2)) + "\x08\x04" +
          unpacked_shares;
  const auto shares = messages::read_update_bytes(bytes);
  BOOST_TEST_REQUIRE(shares.has_value());
  BOOST_TEST_REQUIRE(shares->usage_changes.size() == 1u);
  BOOST_TEST(
      (shares->usage_changes[0].device_allocated_milli == absl::InlinedVector<int32_t, 8>{5, 6}));
  v1::IncrementalUpdate parsed;
  BOOST_TEST_REQUIRE(parsed.ParseFromString(bytes));
  const auto full = messages::from_proto(parsed);
  BOOST_TEST_REQUIRE(full.has_value());
  BOOST_TEST((full->usage_changes == shares->usage_changes));
}

BOOST_AUTO_TEST_CASE(a_view_feed_gives_whole_states_never_usage) {
  Pair pair;
  accepted_commit(pair, {reservation("a", "sim-gpu-0", 1000)});
  const auto since = pair.centre.published().changes_since(pair.centre.revision() - 1);
  BOOST_TEST_REQUIRE((since && since->size() == 1u));
  model::ViewRevision revision = *since->back();
  BOOST_TEST_REQUIRE(!revision.changes.empty());
  for (model::SharedNodeChange& change : revision.changes) {
    change.usage_only = true;  // as an agent's change would be marked
  }
  const model::ViewUpdate flagged = model::to_update(revision);
  for (const model::SharedNodeChange& change : flagged.changes) {
    BOOST_TEST(!change.usage_only);
  }
  // A feed that carried usage anyway is refused by the subscriber, which then asks for a view.
  model::ViewUpdate with_usage = flagged;
  with_usage.usage_changes.push_back(model::usage_of(*flagged.changes[0].node));
  std::string bytes;
  messages::write_update_bytes(with_usage, bytes);
  messages::ViewFeed feed;
  BOOST_TEST(messages::decode_feed(bytes, false, feed) ==
             "view feed: node_deltas: op USAGE is for an agent's updates; a feed gives whole node "
             "states");
}

BOOST_AUTO_TEST_SUITE_END()
