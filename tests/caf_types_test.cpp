// Protobuf messages cross CAF links through one generic inspect(): the bytes are the schema's. And
// what else configure_actor_system gives every actor system: one worker per hardware thread.
#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>
#include <caf/scheduler/abstract_coordinator.hpp>

#include <boost/test/unit_test.hpp>
#include <thread>

#include "messages/caf_types.hpp"
#include "messages/convert.hpp"
#include "tests/actor_harness.hpp"

using namespace unisched;

namespace {

/// `value` in CAF's binary form, as it crosses a link; fails the test if it cannot be written.
template <class T>
std::vector<char> to_wire(caf::actor_system& system, T value) {
  std::vector<char> bytes;
  caf::binary_serializer sink{system, bytes};
  BOOST_TEST_REQUIRE(!sink(value));
  return bytes;
}

/// Reads `bytes` as CAF's binary form of an `out`; the error when they are not one.
template <class T>
caf::error from_wire(caf::actor_system& system, const std::vector<char>& bytes, T& out) {
  caf::binary_deserializer source{system, bytes};
  return source(out);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(caf_types)

BOOST_AUTO_TEST_CASE(a_protobuf_message_round_trips_through_caf_serialization) {
  testing::ActorHarness harness;
  v1::IncrementalUpdate update;
  update.set_cluster_id("c1");
  update.set_epoch(3);
  update.set_version(42);
  auto* delta = update.add_node_deltas();
  delta->set_op(v1::NodeDelta::ADD);
  delta->mutable_node()->set_name("n1");
  (*delta->mutable_node()->mutable_labels())["zone"] = "z1";
  const std::vector<char> buffer = to_wire(*harness.system, update);
  v1::IncrementalUpdate copy;
  BOOST_TEST_REQUIRE(!from_wire(*harness.system, buffer, copy));
  BOOST_TEST(copy.SerializeAsString() == update.SerializeAsString());
  BOOST_TEST(copy.node_deltas(0).node().labels().at("zone") == "z1");
}

BOOST_AUTO_TEST_CASE(malformed_bytes_are_an_error_not_a_crash) {
  testing::ActorHarness harness;
  v1::IncrementalUpdate update;
  update.set_cluster_id("c1");
  const std::vector<char> buffer = to_wire(*harness.system, update);
  // The payload "\x0a\x02c1" ends the buffer: make its field tag invalid (wire type 7), and
  // cut another copy short.
  BOOST_TEST_REQUIRE(buffer.size() > 4u);
  std::vector<char> corrupted = buffer;
  corrupted[buffer.size() - 4] = static_cast<char>(0xff);
  std::vector<char> truncated(buffer.begin(), buffer.end() - 2);
  for (const auto& bytes : {corrupted, truncated}) {
    v1::IncrementalUpdate out;
    BOOST_TEST(static_cast<bool>(from_wire(*harness.system, bytes, out)));
  }
}

// A view feed entry is shared inside a process; across a link it is its IncrementalUpdate, or
// its ClusterSnapshot when it is the whole view.
namespace {

model::ViewUpdate one_node_update() {
  model::ViewUpdate update;
  update.cluster_id = "c1";
  update.epoch = 2;
  update.base_version = 6;
  update.version = 7;
  model::NodeState node;
  node.name = "n1";
  node.allocatable_cpu_milli = 4000;
  node.allocated_cpu_milli = 1000;
  update.changes.push_back(model::share({model::NodeChangeKind::Add, node}));
  return update;
}

/// The whole of cluster c1 at version 9 (epoch 2): the node of one_node_update().
model::ViewSnapshot one_node_snapshot() {
  model::ViewSnapshot snapshot;
  snapshot.cluster_id = "c1";
  snapshot.epoch = 2;
  snapshot.version = 9;
  snapshot.nodes = {one_node_update().changes.at(0).node};
  return snapshot;
}

/// The bytes a ViewFeed (whether whole) or an AgentUpdate (its problem) carries: that field,
/// then the message.
template <class Field>
std::vector<char> message_wire(caf::actor_system& system, Field field,
                               const google::protobuf::MessageLite& message) {
  std::vector<char> bytes;
  caf::binary_serializer sink{system, bytes};
  BOOST_TEST_REQUIRE(!sink(field, message.SerializeAsString()));
  return bytes;
}

std::vector<char> feed_wire(caf::actor_system& system, bool whole,
                            const google::protobuf::MessageLite& message) {
  return message_wire(system, whole, message);
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_view_feed_entry_crosses_a_link_as_its_update_and_refuses_bad_bytes) {
  testing::ActorHarness harness;
  const model::ViewUpdate update = one_node_update();
  const messages::ViewFeed feed{
      std::make_shared<const model::ViewRevision>(model::as_revision(model::ViewUpdate(update)))};
  messages::ViewFeed received;
  BOOST_TEST_REQUIRE(!from_wire(*harness.system, to_wire(*harness.system, feed), received));
  BOOST_TEST_REQUIRE(received.revision != nullptr);
  BOOST_TEST(received.revision != feed.revision);
  BOOST_TEST(!received.revision->whole);
  BOOST_TEST(messages::to_proto(model::to_update(*received.revision)).SerializeAsString() ==
             messages::to_proto(update).SerializeAsString());
  BOOST_TEST(received.revision->changes.at(0).node->allocated_cpu_milli == 1000);
  BOOST_TEST(received.revision->changes.at(0).revision == 7u);

  // Its wire form is the flag and the IncrementalUpdate's bytes.
  BOOST_TEST((to_wire(*harness.system, feed) ==
              feed_wire(*harness.system, false, messages::to_proto(update))));
  // A change that is none of add, update or remove is refused, and nothing is kept.
  v1::IncrementalUpdate bad = messages::to_proto(update);
  bad.mutable_node_deltas(0)->set_op(static_cast<v1::NodeDelta::Op>(9));
  messages::ViewFeed refused;
  BOOST_TEST(static_cast<bool>(
      from_wire(*harness.system, feed_wire(*harness.system, false, bad), refused)));
  BOOST_TEST(refused.revision == nullptr);
  // Nor are bytes cut short kept.
  std::vector<char> truncated = to_wire(*harness.system, feed);
  truncated.resize(truncated.size() - 3);
  messages::ViewFeed cut;
  BOOST_TEST(static_cast<bool>(from_wire(*harness.system, truncated, cut)));
  BOOST_TEST(cut.revision == nullptr);
}

BOOST_AUTO_TEST_CASE(a_whole_view_crosses_a_link_as_its_snapshot_with_node_revisions) {
  testing::ActorHarness harness;
  model::ViewSnapshot snapshot = one_node_snapshot();
  snapshot.agent_version = 4;
  snapshot.node_revisions = {{"n1", 5}};
  const messages::ViewFeed feed{std::make_shared<const model::ViewRevision>(
      model::as_revision(model::ViewSnapshot(snapshot)))};
  messages::ViewFeed received;
  BOOST_TEST_REQUIRE(!from_wire(*harness.system, to_wire(*harness.system, feed), received));
  BOOST_TEST_REQUIRE(received.revision != nullptr);
  BOOST_TEST(received.revision->whole);
  BOOST_TEST(received.revision->revision == 9u);
  BOOST_TEST(received.revision->agent_version == 4u);
  BOOST_TEST_REQUIRE(received.revision->changes.size() == 1u);
  BOOST_TEST(received.revision->changes[0].revision == 5u);
  BOOST_TEST(messages::to_proto(model::to_snapshot(*received.revision)).SerializeAsString() ==
             messages::to_proto(snapshot).SerializeAsString());
  // Bytes cut short are refused, and nothing is kept.
  std::vector<char> truncated = to_wire(*harness.system, feed);
  truncated.resize(truncated.size() - 3);
  messages::ViewFeed cut;
  BOOST_TEST(static_cast<bool>(from_wire(*harness.system, truncated, cut)));
  BOOST_TEST(cut.revision == nullptr);
}

// An agent's update is its own inside a process; across a link it is its IncrementalUpdate.
BOOST_AUTO_TEST_CASE(an_agent_update_crosses_a_link_as_its_incremental_update_with_its_problem) {
  testing::ActorHarness harness;
  const model::ViewUpdate update = one_node_update();
  const messages::AgentUpdate sent = messages::share_update(update);
  BOOST_TEST(sent.update->changes.at(0).node == update.changes.at(0).node);  // shared, not copied
  BOOST_TEST((to_wire(*harness.system, sent) ==
              message_wire(*harness.system, std::string(), messages::to_proto(update))));
  messages::AgentUpdate received;
  BOOST_TEST_REQUIRE(!from_wire(*harness.system, to_wire(*harness.system, sent), received));
  BOOST_TEST_REQUIRE(received.update != nullptr);
  BOOST_TEST(received.problem.empty());
  BOOST_TEST(received.update->changes.at(0).node != update.changes.at(0).node);
  BOOST_TEST(messages::to_proto(*received.update).SerializeAsString() ==
             messages::to_proto(update).SerializeAsString());

  // An IncrementalUpdate that is no valid update keeps its position and says why, over every
  // further link too (so the ClusterActor refuses it with the reason).
  v1::IncrementalUpdate bad = messages::to_proto(update);
  bad.mutable_node_deltas(0)->set_op(static_cast<v1::NodeDelta::Op>(9));
  const messages::AgentUpdate malformed = messages::read_update(bad);
  BOOST_TEST(malformed.problem == "node_deltas[0].op: must be ADD, UPDATE, REMOVE or USAGE, got 9");
  BOOST_TEST(malformed.update->version == 7u);
  BOOST_TEST(malformed.update->changes.empty());
  messages::AgentUpdate relayed;
  BOOST_TEST_REQUIRE(!from_wire(*harness.system, to_wire(*harness.system, malformed), relayed));
  BOOST_TEST(relayed.problem == malformed.problem);
  BOOST_TEST(relayed.update->epoch == 2u);
  BOOST_TEST(relayed.update->version == 7u);
  BOOST_TEST(relayed.update->changes.empty());

  // Bytes cut short, or no IncrementalUpdate at all, are refused, and nothing is kept.
  std::vector<char> truncated = to_wire(*harness.system, sent);
  truncated.resize(truncated.size() - 3);
  messages::AgentUpdate cut;
  BOOST_TEST(static_cast<bool>(from_wire(*harness.system, truncated, cut)));
  BOOST_TEST(cut.update == nullptr);
  std::vector<char> garbage;
  caf::binary_serializer sink{*harness.system, garbage};
  BOOST_TEST_REQUIRE(!sink(std::string(), std::string("\xff\xff\xff")));
  messages::AgentUpdate unread;
  BOOST_TEST(static_cast<bool>(from_wire(*harness.system, garbage, unread)));
  BOOST_TEST(unread.update == nullptr);
}

// An agent's snapshot is its own inside a process; across a link it is its ClusterSnapshot,
// with its part number, and a malformed one keeps its position and its reason.
BOOST_AUTO_TEST_CASE(an_agent_snapshot_crosses_a_link_as_its_cluster_snapshot_with_its_problem) {
  testing::ActorHarness harness;
  model::ViewSnapshot snapshot = one_node_snapshot();
  snapshot.applied_placements = {"train/0"};
  messages::AgentSnapshot sent = messages::share_snapshot(snapshot);
  sent.part = 1;
  sent.parts = 3;
  BOOST_TEST(sent.snapshot->nodes.at(0) == snapshot.nodes.at(0));  // shared, not copied
  messages::AgentSnapshot received;
  BOOST_TEST_REQUIRE(!from_wire(*harness.system, to_wire(*harness.system, sent), received));
  BOOST_TEST(received.problem.empty());
  BOOST_TEST(received.part == 1u);
  BOOST_TEST(received.parts == 3u);
  BOOST_TEST_REQUIRE(received.snapshot != nullptr);
  BOOST_TEST(received.snapshot->nodes.at(0) != snapshot.nodes.at(0));
  BOOST_TEST(messages::to_proto(received).SerializeAsString() ==
             messages::to_proto(sent).SerializeAsString());

  // A named node that cannot be read is left out; a node without a name spoils the snapshot.
  v1::ClusterSnapshot bad = messages::to_proto(sent);
  bad.mutable_nodes(0)->add_accelerators()->set_link_generation(999);
  const messages::AgentSnapshot left_out = messages::read_snapshot(bad);
  BOOST_TEST(left_out.problem.empty());
  BOOST_TEST(left_out.snapshot->nodes.empty());
  BOOST_TEST_REQUIRE(left_out.snapshot->left_out.size() == 1u);
  BOOST_TEST(left_out.snapshot->left_out[0].reason.find("nodes[0].accelerators[") !=
             std::string::npos);
  bad.mutable_nodes(0)->clear_name();
  const messages::AgentSnapshot malformed = messages::read_snapshot(bad);
  BOOST_TEST(malformed.problem.find("nodes[0].accelerators[") != std::string::npos,
             malformed.problem);
  BOOST_TEST(malformed.snapshot->nodes.empty());
  messages::AgentSnapshot relayed;
  BOOST_TEST_REQUIRE(!from_wire(*harness.system, to_wire(*harness.system, malformed), relayed));
  BOOST_TEST(relayed.problem == malformed.problem);
  BOOST_TEST(relayed.snapshot->version == 9u);
  BOOST_TEST(relayed.part == 1u);

  std::vector<char> truncated = to_wire(*harness.system, sent);
  truncated.resize(truncated.size() - 3);
  messages::AgentSnapshot cut;
  BOOST_TEST(static_cast<bool>(from_wire(*harness.system, truncated, cut)));
  BOOST_TEST(cut.snapshot == nullptr);
}

BOOST_AUTO_TEST_CASE(a_placement_keeps_its_device_shares_on_the_wire) {
  model::Reservation share{"r/0", "n1", 500, 1 << 20, {3}, {8080}, {460}, "{\"spec\":{}}"};
  v1::Placement wire;
  messages::to_proto(share, wire);
  v1::Placement received;
  BOOST_TEST_REQUIRE(received.ParseFromString(wire.SerializeAsString()));
  const model::Reservation back = messages::from_proto(received);
  BOOST_TEST(back.devices == std::vector<int32_t>{3});
  BOOST_TEST(back.device_milli == std::vector<int32_t>{460});
  BOOST_TEST(back.host_ports == std::vector<int32_t>{8080});
  BOOST_TEST(back.pod_template == "{\"spec\":{}}");
  // Whole devices send no shares at all, as before shares existed.
  v1::Placement whole;
  messages::to_proto(model::Reservation{"r/1", "n1", 500, 0, {0, 1}, {}, {}, {}}, whole);
  BOOST_TEST(whole.devices_size() == 2);
  BOOST_TEST(whole.device_milli_size() == 0);
}

BOOST_AUTO_TEST_CASE(a_device_keeps_its_resource_name_and_link_generation_on_the_wire) {
  model::ViewUpdate update;
  update.cluster_id = "c";
  update.epoch = 1;
  update.version = 1;
  model::NodeState node;
  node.name = "n1";
  model::Device device;
  device.resource = model::Symbol(std::string("nvidia.com/mig-1g.10gb"));
  device.model = model::Symbol(std::string("A100-SXM4-80GB-MIG-1g.10gb"));
  device.interconnect = model::Interconnect::ICI;
  device.link_generation = 4;
  node.devices.push_back(device);
  update.changes.push_back(model::share({model::NodeChangeKind::Add, node}));
  const auto back = messages::from_proto(messages::to_proto(update));
  BOOST_TEST_REQUIRE(back.has_value());
  BOOST_TEST((back->changes[0].node->devices[0] == device));
  // What no agent may send: a resource that is not a resource name, an absurd generation.
  const auto refused = [&](auto damage) {
    v1::IncrementalUpdate wire = messages::to_proto(update);
    damage(*wire.mutable_node_deltas(0)->mutable_node()->mutable_accelerators(0));
    // A named node that cannot be read is left out, not refused with the update.
    const auto decoded = messages::from_proto(wire);
    BOOST_TEST_REQUIRE(decoded.has_value());
    return decoded->left_out.empty() ? std::string("accepted") : decoded->left_out[0].reason;
  };
  BOOST_TEST(refused([](v1::Accelerator& a) {
               a.set_resource("GPU");
             }).find("accelerators[0].resource: \"GPU\": must be a resource name") !=
             std::string::npos);
  BOOST_TEST(refused([](v1::Accelerator& a) {
               a.set_resource("kubernetes.io/gpu");
             }).find("outside the kubernetes.io domain") != std::string::npos);
  BOOST_TEST(refused([](v1::Accelerator& a) {
               a.set_link_generation(100);
             }).find("accelerators[0].link_generation: 100 is not between 0 and 99") !=
             std::string::npos);
  // A device keeps its group and its share in 16 bits each: wider values are named, not cut.
  BOOST_TEST(refused([](v1::Accelerator& a) {
               a.set_topology_group(32768);
             }).find("accelerators[0].topology_group: 32768 is not between 0 and 32767") !=
             std::string::npos);
  BOOST_TEST(refused([](v1::Accelerator& a) {
               a.set_topology_group(-1);
             }).find("topology_group: -1 is not between 0 and 32767") != std::string::npos);
  BOOST_TEST(refused([](v1::Accelerator& a) {
               a.set_allocated_milli(70000);
             }).find("accelerators[0].allocated_milli: 70000 is not between 0 and 32767") !=
             std::string::npos);
  BOOST_TEST(refused([](v1::Accelerator& a) { a.set_topology_group(32767); }) == "accepted");
  BOOST_TEST(refused([](v1::Accelerator& a) {
               a.set_interconnect(static_cast<v1::Interconnect>(9));
             }).find("interconnect: unknown value 9") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_configured_actor_system_runs_one_worker_per_hardware_thread) {
  testing::ActorHarness harness;  // configured as every unisched process is
  BOOST_TEST(harness.system->scheduler().num_workers() == std::thread::hardware_concurrency());
}

BOOST_AUTO_TEST_SUITE_END()
