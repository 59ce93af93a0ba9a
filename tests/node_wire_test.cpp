// The direct reader and writer of an update's node changes (messages/node_wire) against the
// generated protobuf code: the same bytes mean the same update either way, and whatever the
// direct reader leaves alone, the full reader still reads or refuses with its reason.
#include <google/protobuf/util/message_differencer.h>
#include <boost/test/unit_test.hpp>

#include "messages/agent_update.hpp"
#include "messages/convert.hpp"
#include "messages/node_wire.hpp"

namespace unisched {
namespace {

using google::protobuf::util::MessageDifferencer;

model::NodeState gpu_node(const std::string& name, int32_t used) {
  model::NodeState node;
  node.name = name;
  node.node_group = "a100-pool";
  node.allocatable_cpu_milli = 96'000;
  node.allocatable_memory_bytes = int64_t{1} << 40;
  node.max_pods = 110;
  node.allocated_cpu_milli = 4'000;
  node.allocated_memory_bytes = int64_t{3} << 30;
  node.pod_count = 3;
  for (int32_t i = 0; i < 8; ++i) {
    model::Device device;
    device.model = "NVIDIA-A100-SXM4-80GB";
    device.resource = "nvidia.com/gpu";
    device.memory_bytes = int64_t{80} << 30;
    device.topology_group = i / 4;
    device.interconnect = model::Interconnect::NVLink;
    device.link_generation = 3;
    device.allocated_milli = i < used ? 1000 : 0;
    node.devices.push_back(device);
  }
  node.host_ports_in_use = {80, 443, 30'000};
  node.labels = model::NodeLabels{{"topology.kubernetes.io/zone", "eu-1a"}, {"tier", ""}};
  node.taints = {{"nvidia.com/gpu", "present", "NoSchedule"}};
  return node;
}

/// An update with every kind of content the schema has room for.
model::ViewUpdate rich_update() {
  model::ViewUpdate update;
  update.cluster_id = "a100";
  update.epoch = 7;
  update.base_version = 41;
  update.version = 42;
  update.changes.push_back(model::share({model::NodeChangeKind::Add, gpu_node("gpu-1", 2)}));
  model::NodeState cpu;
  cpu.name = "cpu-1";
  cpu.allocatable_cpu_milli = 8'000;
  cpu.schedulable = false;
  cpu.host_ports_in_use = {-1};  // nonsense the model refuses later, but the wire carries it
  update.changes.push_back(model::share({model::NodeChangeKind::Update, cpu}));
  model::NodeState gone;
  gone.name = "gpu-9";
  update.changes.push_back(model::share({model::NodeChangeKind::Remove, gone}));
  model::NodeUsage usage = model::usage_of(gpu_node("gpu-5", 3));
  usage.device_allocated_milli[7] = -1;  // nonsense too: ten bytes on the wire
  update.usage_changes.push_back(usage);
  update.resources = model::ClusterResources{{{"fast-ssd", 100, 20}}, 5'000, 10'000'000'000};
  update.health = model::HealthState::Degraded;
  update.applied_placements = {"train/0"};
  update.refused_placements = {{"web/1", "no room"}};
  update.finished_placements = {"batch/3"};
  return update;
}

void check_same(const model::ViewUpdate& read, const model::ViewUpdate& expected) {
  BOOST_TEST(MessageDifferencer::Equals(messages::to_proto(read), messages::to_proto(expected)),
             messages::to_proto(read).DebugString());
  BOOST_TEST_REQUIRE(read.changes.size() == expected.changes.size());
  for (size_t i = 0; i < read.changes.size(); ++i) {
    BOOST_TEST((read.changes[i].kind == expected.changes[i].kind));
    if (read.changes[i].kind != model::NodeChangeKind::Remove) {
      BOOST_TEST((*read.changes[i].node == *expected.changes[i].node));
    }
  }
}

std::string generated_bytes(const model::ViewUpdate& update) {
  return messages::to_proto(update).SerializeAsString();
}

/// The update `bytes` hold as the generated parser and the model's checks read them.
model::ViewUpdate read_in_full(const std::string& bytes) {
  v1::IncrementalUpdate message;
  BOOST_TEST_REQUIRE(message.ParseFromString(bytes));
  const auto update = messages::from_proto(message);
  BOOST_TEST_REQUIRE(update.has_value(), (update ? std::string() : update.error()));
  return *update;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(node_wire)

BOOST_AUTO_TEST_CASE(written_bytes_are_what_the_generated_code_reads) {
  const model::ViewUpdate update = rich_update();
  std::string bytes;
  messages::write_update_bytes(update, bytes);
  v1::IncrementalUpdate parsed;
  BOOST_TEST_REQUIRE(parsed.ParseFromString(bytes));
  BOOST_TEST(MessageDifferencer::Equals(parsed, messages::to_proto(update)), parsed.DebugString());
}

BOOST_AUTO_TEST_CASE(written_bytes_are_the_generated_codes_bytes) {
  model::ViewUpdate update = rich_update();
  model::NodeState one_label = gpu_node("gpu-3", 8);
  one_label.labels = model::NodeLabels{{"tier", ""}};  // protobuf's map order is its own
  update.changes[0] = model::share({model::NodeChangeKind::Add, one_label});
  std::string bytes = "kept";
  messages::write_update_bytes(update, bytes);
  BOOST_TEST(bytes == "kept" + generated_bytes(update));
}

BOOST_AUTO_TEST_CASE(generated_bytes_read_directly_are_the_same_update) {
  const model::ViewUpdate update = rich_update();
  const auto read = messages::read_update_bytes(generated_bytes(update));
  BOOST_TEST_REQUIRE(read.has_value());
  check_same(*read, read_in_full(generated_bytes(update)));
  check_same(*read, update);
}

BOOST_AUTO_TEST_CASE(a_delta_without_its_node_reads_as_the_generated_code_reads_it) {
  // Found by fuzzing: the model's NodeState is schedulable by default, proto3's is not.
  v1::IncrementalUpdate message;
  message.set_cluster_id("c");
  message.add_node_deltas()->set_op(v1::NodeDelta::ADD);
  const std::string bytes = message.SerializeAsString();
  const auto read = messages::read_update_bytes(bytes);
  BOOST_TEST_REQUIRE(read.has_value());
  BOOST_TEST(!read->changes.at(0).node->schedulable);
  check_same(*read, read_in_full(bytes));
}

BOOST_AUTO_TEST_CASE(a_length_longer_than_32_bits_is_refused_as_the_generated_code_refuses_it) {
  // Found by fuzzing: ReadVarint32 keeps the low 32 bits of a longer varint (here 0).
  v1::IncrementalUpdate message;
  message.add_node_deltas()->mutable_node()->set_name("n");
  std::string delta = message.node_deltas(0).SerializeAsString();
  delta += std::string("\x52\x80\x80\x80\x80\x80\x08", 7);  // labels (10), length 2^38
  std::string bytes = std::string("\x2a", 1) + static_cast<char>(delta.size()) + delta;
  BOOST_TEST(!message.ParseFromString(bytes));
  BOOST_TEST(!messages::read_update_bytes(bytes).has_value());
}

BOOST_AUTO_TEST_CASE(an_overlong_tag_or_number_is_left_to_the_generated_code) {
  // Found by fuzzing: ReadTag keeps the low 32 bits of a six-byte tag (here: field 8, a varint).
  v1::IncrementalUpdate message;
  message.add_node_deltas()->mutable_node()->set_name("n");
  const std::string node = message.node_deltas(0).node().SerializeAsString();
  const std::string device = std::string("\xc0\x80\x80\x80\x80\x01\x02", 7);  // tag 2^35 + 64
  std::string node_with_device = node + "\x4a" + static_cast<char>(device.size()) + device;
  std::string delta =
      "\x12" + std::string(1, static_cast<char>(node_with_device.size())) + node_with_device;
  std::string bytes = "\x2a" + std::string(1, static_cast<char>(delta.size())) + delta;
  BOOST_TEST(!message.ParseFromString(bytes));
  BOOST_TEST(!messages::read_update_bytes(bytes).has_value());
  // A node's number in more bytes than it needs (pod_count 1 as 81 00) is valid protobuf: left
  // to the full reader, which takes it.
  const std::string padded_node = node + std::string("\x40\x81\x00", 3);
  delta = "\x08\x01\x12" + std::string(1, static_cast<char>(padded_node.size())) + padded_node;
  bytes = "\x2a" + std::string(1, static_cast<char>(delta.size())) + delta;
  BOOST_TEST(!messages::read_update_bytes(bytes).has_value());
  BOOST_TEST(read_in_full(bytes).changes.at(0).node->pod_count == 1);
  messages::AgentUpdate decoded;
  BOOST_TEST_REQUIRE(messages::decode_update(bytes, "", decoded));
  BOOST_TEST(decoded.update->changes.at(0).node->pod_count == 1);
}

BOOST_AUTO_TEST_CASE(host_ports_read_packed_and_one_by_one) {
  model::ViewUpdate update = rich_update();
  v1::IncrementalUpdate message = messages::to_proto(update);
  std::string bytes = message.SerializeAsString();  // proto3 packs repeated numbers
  // The same node with its ports unpacked: field 13 as varints, appended to the node's bytes.
  v1::NodeState& node = *message.mutable_node_deltas(0)->mutable_node();
  node.clear_host_ports_in_use();
  std::string node_bytes = node.SerializeAsString();
  for (const uint8_t port : {80, 81}) {
    node_bytes += static_cast<char>(13 << 3);
    node_bytes += static_cast<char>(port);
  }
  BOOST_TEST_REQUIRE(node.ParseFromString(node_bytes));
  BOOST_TEST(
      (std::vector<int32_t>(node.host_ports_in_use().begin(), node.host_ports_in_use().end()) ==
       std::vector<int32_t>{80, 81}));
  const std::string unpacked = message.SerializeAsString();
  const auto read = messages::read_update_bytes(unpacked);
  BOOST_TEST_REQUIRE(read.has_value());
  BOOST_TEST((read->changes[0].node->host_ports_in_use == std::vector<int32_t>{80, 81}));
  check_same(*read, read_in_full(unpacked));
}

BOOST_AUTO_TEST_CASE(what_it_leaves_alone_the_full_reader_reads_or_refuses_with_its_reason) {
  // Non-ASCII text: valid UTF-8 the generated parser checks and takes.
  model::ViewUpdate update = rich_update();
  model::NodeState labelled = gpu_node("gpu-2", 0);
  labelled.labels = model::NodeLabels{{"owner", "J\xc3\xbcrgen"}};
  update.changes[0] = model::share({model::NodeChangeKind::Add, labelled});
  BOOST_TEST(!messages::read_update_bytes(generated_bytes(update)).has_value());
  messages::AgentUpdate decoded;
  BOOST_TEST_REQUIRE(messages::decode_update(generated_bytes(update), "", decoded));
  BOOST_TEST(decoded.problem.empty());
  BOOST_TEST(decoded.update->changes[0].node->labels.at("owner") == "J\xc3\xbcrgen");

  // An accelerator type the model does not know: the full reader leaves the node out, naming the
  // field.
  const auto left_out_reason = [](const messages::AgentUpdate& read) {
    return read.update->left_out.empty() ? std::string() : read.update->left_out[0].reason;
  };
  v1::IncrementalUpdate message = messages::to_proto(rich_update());
  message.mutable_node_deltas(0)->mutable_node()->mutable_accelerators(3)->set_type(
      static_cast<v1::AcceleratorType>(7));
  const std::string bad_type = message.SerializeAsString();
  BOOST_TEST(!messages::read_update_bytes(bad_type).has_value());
  BOOST_TEST_REQUIRE(messages::decode_update(bad_type, "", decoded));
  BOOST_TEST(decoded.problem.empty());
  BOOST_TEST(left_out_reason(decoded).find(
                 "node_deltas[0].node.accelerators[3].type: unknown value 7") != std::string::npos,
             left_out_reason(decoded));
  // A topology group past the 16 bits a device keeps it in: left out the same way.
  message = messages::to_proto(rich_update());
  message.mutable_node_deltas(0)->mutable_node()->mutable_accelerators(3)->set_topology_group(
      1 << 20);
  const std::string wide_group = message.SerializeAsString();
  BOOST_TEST(!messages::read_update_bytes(wide_group).has_value());
  BOOST_TEST_REQUIRE(messages::decode_update(wide_group, "", decoded));
  BOOST_TEST(decoded.problem.empty());
  BOOST_TEST(left_out_reason(decoded).find(
                 "node_deltas[0].node.accelerators[3].topology_group: 1048576 is not between 0 and "
                 "32767") != std::string::npos,
             left_out_reason(decoded));

  // A field this schema does not have: skipped by the full reader, as protobuf does.
  std::string unknown = generated_bytes(rich_update());
  unknown += static_cast<char>(((99 << 3) & 0x7f) | 0x80);
  unknown += static_cast<char>(99 >> 4);
  unknown += static_cast<char>(5);
  BOOST_TEST_REQUIRE(read_in_full(unknown).changes.size() == 3u);
  BOOST_TEST_REQUIRE(messages::decode_update(unknown, "", decoded));
  BOOST_TEST(decoded.problem.empty());
  check_same(*decoded.update, rich_update());
}

BOOST_AUTO_TEST_CASE(
    envelope_fields_of_every_wire_type_are_passed_over_or_left_to_the_full_reader) {
  const std::string update = generated_bytes(rich_update());
  // Unknown fields 90-93 of the envelope: a varint, eight bytes, four bytes, a length.
  const std::string fixed64 = std::string("\xd1\x05", 2) + std::string(8, '\x07');
  const std::string fixed32 = std::string("\xdd\x05", 2) + std::string(4, '\x07');
  for (const std::string& field :
       {std::string("\xd0\x05\x2a", 3), fixed64, fixed32, std::string("\xea\x05\x02hi", 5)}) {
    const auto direct = messages::read_update_bytes(field + update);
    BOOST_TEST_REQUIRE(direct.has_value());
    check_same(*direct, rich_update());
    check_same(read_in_full(field + update), rich_update());
    // Cut inside the field: no update at all.
    BOOST_TEST(!messages::read_update_bytes(field.substr(0, field.size() - 1)).has_value());
  }
  // A group (wire type 3, absent from proto3) is not read here; the full reader refuses it.
  const std::string group("\xd3\x05\xd4\x05", 4);
  BOOST_TEST(!messages::read_update_bytes(group + update).has_value());

  // A number of ten bytes whose last carries bits past 64: not read here.
  v1::IncrementalUpdate message;
  message.add_node_deltas()->mutable_node()->set_name("n");
  const std::string node = message.node_deltas(0).node().SerializeAsString() + "\x40" +
                           std::string(9, '\xff') + "\x03";  // pod_count
  const std::string delta = "\x08\x01\x12" + std::string(1, static_cast<char>(node.size())) + node;
  BOOST_TEST(
      !messages::read_update_bytes("\x2a" + std::string(1, static_cast<char>(delta.size())) + delta)
           .has_value());
}

BOOST_AUTO_TEST_CASE(cut_or_corrupted_bytes_are_never_read_as_something_else) {
  const std::string bytes = generated_bytes(rich_update());
  int read_directly = 0;
  for (size_t cut = 0; cut <= bytes.size(); ++cut) {
    for (const int flip : {-1, 0, 0x80, 0x07}) {
      std::string damaged = bytes.substr(0, cut);
      if (flip >= 0 && cut > 0) {
        damaged[cut / 2] = static_cast<char>(damaged[cut / 2] ^ (flip == 0 ? 0xff : flip));
      }
      const auto direct = messages::read_update_bytes(damaged);
      v1::IncrementalUpdate message;
      if (!direct) {
        continue;
      }
      ++read_directly;
      // Whatever is read directly, the generated parser reads the same.
      BOOST_TEST_REQUIRE(message.ParseFromString(damaged), "cut at " << cut << ", flip " << flip);
      const auto full = messages::from_proto(message);
      BOOST_TEST_REQUIRE(full.has_value(), "cut at " << cut << ", flip " << flip);
      check_same(*direct, *full);
    }
  }
  BOOST_TEST(read_directly > 0);  // the whole message, at least, and the cuts between fields
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace unisched
