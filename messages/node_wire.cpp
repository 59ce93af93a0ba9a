#include "messages/node_wire.hpp"

#include <absl/container/inlined_vector.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <stdexcept>

#include "messages/convert.hpp"
#include "messages/unisched.pb.h"

namespace unisched::messages {
namespace {

using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedOutputStream;

constexpr int kVarint = WireFormatLite::WIRETYPE_VARINT;
constexpr int kLength = WireFormatLite::WIRETYPE_LENGTH_DELIMITED;
constexpr int kNodeDeltasField = v1::IncrementalUpdate::kNodeDeltasFieldNumber;

// ---- Reading ------------------------------------------------------------------------------

/// A field's tag and where the tag starts.
struct Field {
  uint32_t tag;
  const uint8_t* start;
  int number() const { return static_cast<int>(WireFormatLite::GetTagFieldNumber(tag)); }
};

constexpr uint32_t tag_of(int number, int type) {
  return (static_cast<uint32_t>(number) << 3) | static_cast<uint32_t>(type);
}

bool plain_ascii(std::string_view text) {
  for (const char c : text) {
    if (static_cast<unsigned char>(c) >= 0x80) {
      return false;
    }
  }
  return true;
}

/// The bytes of one message: a cursor and the message's end. An embedded message is read by a
/// reader of its own bytes, so nothing is pushed or popped per message (CodedInputStream's
/// limits cost more than the fields they bounded).
class WireReader {
 public:
  WireReader(const uint8_t* at, const uint8_t* end) : at_(at), end_(end) {}

  bool done() const { return at_ == end_; }
  const uint8_t* position() const { return at_; }

  /// A varint in its shortest form. Every encoder writes that; a longer one, or one past 64
  /// bits, is left to the generated parser, whose handling of such forms is its own (found by
  /// fuzzing).
  bool varint(uint64_t& value) {
    if (at_ != end_ && *at_ < 0x80) {  // most tags and small numbers: one byte
      value = *at_++;
      return true;
    }
    uint64_t result = 0;
    for (int i = 0; i < 10 && at_ != end_; ++i) {
      const uint8_t byte = *at_++;
      result |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
      if (byte < 0x80) {
        value = result;
        return (byte != 0 || i == 0) && (i < 9 || byte == 1);
      }
    }
    return false;
  }

  /// A length that fits in what is left of the message: a longer one is a lie.
  bool length(size_t& out) {
    uint64_t value = 0;
    if (!varint(value) || value > static_cast<uint64_t>(end_ - at_)) {
      return false;
    }
    out = static_cast<size_t>(value);
    return true;
  }

  /// A length-delimited field's bytes, without a copy (they live as long as the input).
  bool bytes(std::string_view& out) {
    size_t size = 0;
    if (!length(size)) {
      return false;
    }
    out = std::string_view(reinterpret_cast<const char*>(at_), size);
    at_ += size;
    return true;
  }

  /// The embedded message that follows, as a reader of its bytes; the cursor moves past it.
  bool message(WireReader& inner) {
    size_t size = 0;
    if (!length(size)) {
      return false;
    }
    inner = WireReader(at_, at_ + size);
    at_ += size;
    return true;
  }

  /// Passes over a field of the envelope. Groups (proto2's, absent from this schema) are left
  /// to the generated parser.
  bool skip(uint32_t tag) {
    uint64_t value = 0;
    std::string_view text;
    switch (WireFormatLite::GetTagWireType(tag)) {
      case WireFormatLite::WIRETYPE_VARINT:
        return varint(value);
      case WireFormatLite::WIRETYPE_LENGTH_DELIMITED:
        return bytes(text);
      case WireFormatLite::WIRETYPE_FIXED64:
        return advance(8);
      case WireFormatLite::WIRETYPE_FIXED32:
        return advance(4);
      default:
        return false;
    }
  }

 private:
  bool advance(size_t size) {
    if (size > static_cast<size_t>(end_ - at_)) {
      return false;
    }
    at_ += size;
    return true;
  }

  const uint8_t* at_;
  const uint8_t* end_;
};

/// Text the generated parser would take too: plain ASCII is always valid UTF-8 (anything else
/// is left to it).
bool read_text(WireReader& in, std::string_view& out) {
  return in.bytes(out) && plain_ascii(out);
}

/// A varint field as int64, or as int32 (also enums and bools): then its low 32 bits are the
/// value (negative numbers travel sign-extended to 64 bits).
template <class Int>
bool read_number(WireReader& in, Int& out) {
  uint64_t value = 0;
  if (!in.varint(value)) {
    return false;
  }
  out = static_cast<Int>(value);
  return true;
}

/// Reads the embedded message that follows with `read_fields(reader)`, which sees only its
/// bytes.
template <class ReadFields>
bool read_message(WireReader& in, ReadFields read_fields) {
  WireReader inner(nullptr, nullptr);
  return in.message(inner) && read_fields(inner);
}

/// Hands each field of the message to `read_field(field)` until the message ends; false at the
/// first field it does not read or at bytes that are no field.
template <class ReadField>
bool read_fields(WireReader& in, ReadField read_field) {
  while (!in.done()) {
    const uint8_t* start = in.position();
    uint64_t tag = 0;
    if (!in.varint(tag) || tag == 0 || tag > UINT32_MAX ||
        !read_field(Field{static_cast<uint32_t>(tag), start})) {
      return false;
    }
  }
  return true;
}

bool read_device(WireReader& in, model::Device& device) {
  DeviceFields fields;
  const bool read = read_fields(in, [&](Field field) {
    switch (field.tag) {
      case tag_of(1, kLength):
        return read_text(in, fields.model);
      case tag_of(2, kVarint):
        return read_number(in, fields.memory_bytes);
      case tag_of(3, kVarint):
        return read_number(in, fields.topology_group);
      case tag_of(4, kVarint):
        return read_number(in, fields.interconnect);
      case tag_of(5, kVarint):
        return read_number(in, fields.allocated_milli);
      case tag_of(6, kVarint):
        return read_number(in, fields.type);
      case tag_of(7, kLength):
        return read_text(in, fields.resource);
      case tag_of(8, kVarint):
        return read_number(in, fields.link_generation);
      default:
        return false;
    }
  });
  return read && !device_from_wire(fields, device);  // a refusal is named by the full reader
}

/// A map entry or a taint: text fields 1, 2 (and 3), the last of each counting.
bool read_texts(WireReader& in, std::string_view (&texts)[3], int count) {
  return read_fields(in, [&](Field field) {
    const int number = field.number();
    return WireFormatLite::GetTagWireType(field.tag) == kLength && number >= 1 && number <= count &&
           read_text(in, texts[number - 1]);
  });
}

/// Host ports, one (unpacked) or a packed run of them.
bool read_host_ports(WireReader& in, bool packed, std::vector<int32_t>& ports) {
  int32_t port = 0;
  if (!packed) {
    return read_number(in, port) && (ports.push_back(port), true);
  }
  return read_message(in, [&](WireReader& run) {
    while (!run.done()) {
      if (!read_number(run, port)) {
        return false;
      }
      ports.push_back(port);
    }
    return true;
  });
}

/// What a node is read into besides its NodeState: its lists, gathered before they take their
/// final size.
struct NodeLists {
  absl::InlinedVector<model::Device, 16> devices;
  model::NodeLabels::Map labels;
};

/// The NodeState fields that are not plain numbers.
bool read_node_part(WireReader& in, Field field, model::NodeState& node, NodeLists& lists) {
  std::string_view texts[3];
  switch (field.tag) {
    case tag_of(1, kLength):
      return read_text(in, texts[0]) && (node.name.assign(texts[0]), true);
    case tag_of(2, kLength):
      return read_text(in, texts[0]) && (node.node_group.assign(texts[0]), true);
    case tag_of(9, kLength):
      return read_message(
          in, [&](WireReader& m) { return read_device(m, lists.devices.emplace_back()); });
    case tag_of(10, kLength):
      return read_message(in, [&](WireReader& m) { return read_texts(m, texts, 2); }) &&
             (lists.labels.insert_or_assign(std::string(texts[0]), std::string(texts[1])), true);
    case tag_of(11, kLength):
      return read_message(in, [&](WireReader& m) { return read_texts(m, texts, 3); }) &&
             (node.taints.push_back(
                  {std::string(texts[0]), std::string(texts[1]), std::string(texts[2])}),
              true);
    case tag_of(13, kVarint):
      return read_host_ports(in, false, node.host_ports_in_use);
    case tag_of(13, kLength):
      return read_host_ports(in, true, node.host_ports_in_use);
    default:
      return false;
  }
}

bool read_node(WireReader& in, model::NodeState& node) {
  NodeLists lists;
  int32_t schedulable = 0;
  const bool read = read_fields(in, [&](Field field) {
    switch (field.tag) {
      case tag_of(3, kVarint):
        return read_number(in, node.allocatable_cpu_milli);
      case tag_of(4, kVarint):
        return read_number(in, node.allocatable_memory_bytes);
      case tag_of(5, kVarint):
        return read_number(in, node.max_pods);
      case tag_of(6, kVarint):
        return read_number(in, node.allocated_cpu_milli);
      case tag_of(7, kVarint):
        return read_number(in, node.allocated_memory_bytes);
      case tag_of(8, kVarint):
        return read_number(in, node.pod_count);
      case tag_of(12, kVarint):
        return read_number(in, schedulable);
      default:
        return read_node_part(in, field, node, lists);
    }
  });
  node.schedulable = schedulable != 0;
  node.devices.assign(lists.devices.begin(), lists.devices.end());
  if (!lists.labels.empty()) {
    node.labels = model::NodeLabels(std::move(lists.labels));
  }
  return read;
}

/// A delta's kind, and its node read into `node` (made shared beforehand, so that the state is
/// read where it will stay rather than moved there).
bool read_delta(WireReader& in, model::NodeChangeKind& kind, model::NodeState& node) {
  int32_t op = 0;
  bool has_node = false;     // a second one would merge into the first: left to the full reader
  node.schedulable = false;  // proto3's default, which a delta without its node has
  const bool read = read_fields(in, [&](Field field) {
    if (field.tag == tag_of(1, kVarint)) {
      return read_number(in, op);
    }
    return field.tag == tag_of(2, kLength) && !has_node &&
           (has_node = true, read_message(in, [&](WireReader& m) { return read_node(m, node); }));
  });
  const auto known = change_kind_of(op);
  if (!read || !known) {
    return false;
  }
  kind = *known;
  return true;
}

// ---- Writing ------------------------------------------------------------------------------

size_t varint_size(uint64_t value) {
  return CodedOutputStream::VarintSize64(value);
}
/// A tag of a field below 16, then the field: one byte of tag.
size_t number_size(int64_t value) {
  return value == 0 ? 0 : 1 + varint_size(value);
}
size_t text_size(const std::string& text) {
  return text.empty() ? 0 : 1 + varint_size(text.size()) + text.size();
}
size_t message_size(size_t body) {
  return 1 + varint_size(body) + body;
}

uint8_t* write_tag(int number, int type, uint8_t* at) {
  return WireFormatLite::WriteTagToArray(number, static_cast<WireFormatLite::WireType>(type), at);
}
uint8_t* write_number(int number, int64_t value, uint8_t* at) {
  if (value == 0) {
    return at;
  }
  at = write_tag(number, kVarint, at);
  return CodedOutputStream::WriteVarint64ToArray(static_cast<uint64_t>(value), at);
}
uint8_t* write_text(int number, const std::string& text, uint8_t* at) {
  if (text.empty()) {
    return at;
  }
  at = write_tag(number, kLength, at);
  at = CodedOutputStream::WriteVarint32ToArray(static_cast<uint32_t>(text.size()), at);
  return CodedOutputStream::WriteRawToArray(text.data(), static_cast<int>(text.size()), at);
}
uint8_t* write_header(int number, size_t body, uint8_t* at) {
  at = write_tag(number, kLength, at);
  return CodedOutputStream::WriteVarint32ToArray(static_cast<uint32_t>(body), at);
}

size_t device_size(const model::Device& device) {
  return text_size(device.model) + number_size(device.memory_bytes) +
         number_size(device.topology_group) + number_size(to_proto(device.interconnect)) +
         number_size(device.allocated_milli) + number_size(static_cast<int32_t>(device.type)) +
         text_size(device.resource) + number_size(device.link_generation);
}

uint8_t* write_device(const model::Device& device, uint8_t* at) {
  at = write_text(1, device.model, at);
  at = write_number(2, device.memory_bytes, at);
  at = write_number(3, device.topology_group, at);
  at = write_number(4, to_proto(device.interconnect), at);
  at = write_number(5, device.allocated_milli, at);
  at = write_number(6, static_cast<int32_t>(device.type), at);
  at = write_text(7, device.resource, at);
  return write_number(8, device.link_generation, at);
}

size_t ports_size(const std::vector<int32_t>& ports) {
  size_t size = 0;
  for (const int32_t port : ports) {
    size += varint_size(static_cast<uint64_t>(static_cast<int64_t>(port)));
  }
  return size;
}

/// A map entry's key and value, written even when empty (as the generated code writes them).
size_t entry_size(const std::string& key, const std::string& value) {
  return 2 + varint_size(key.size()) + key.size() + varint_size(value.size()) + value.size();
}
uint8_t* write_entry_text(int number, const std::string& text, uint8_t* at) {
  at = write_header(number, text.size(), at);
  return CodedOutputStream::WriteRawToArray(text.data(), static_cast<int>(text.size()), at);
}

size_t texts_size(const std::string& a, const std::string& b, const std::string* c = nullptr) {
  return text_size(a) + text_size(b) + (c ? text_size(*c) : 0);
}

/// The sizes of a node's devices, worked out once for its size and again for its headers.
using DeviceSizes = absl::InlinedVector<size_t, 16>;

size_t node_size(const model::NodeState& node, DeviceSizes& device_sizes) {
  size_t size = text_size(node.name) + text_size(node.node_group) +
                number_size(node.allocatable_cpu_milli) +
                number_size(node.allocatable_memory_bytes) + number_size(node.max_pods) +
                number_size(node.allocated_cpu_milli) + number_size(node.allocated_memory_bytes) +
                number_size(node.pod_count) + number_size(node.schedulable ? 1 : 0);
  for (const model::Device& device : node.devices) {
    device_sizes.push_back(device_size(device));
    size += message_size(device_sizes.back());
  }
  for (const auto& [key, value] : node.labels) {
    size += message_size(entry_size(key, value));
  }
  for (const model::Taint& taint : node.taints) {
    size += message_size(texts_size(taint.key, taint.value, &taint.effect));
  }
  if (!node.host_ports_in_use.empty()) {
    size += message_size(ports_size(node.host_ports_in_use));
  }
  return size;
}

uint8_t* write_node_lists(const model::NodeState& node, const DeviceSizes& device_sizes,
                          uint8_t* at) {
  for (size_t d = 0; d < node.devices.size(); ++d) {
    at = write_device(node.devices[d], write_header(9, device_sizes[d], at));
  }
  for (const auto& [key, value] : node.labels) {
    at = write_header(10, entry_size(key, value), at);
    at = write_entry_text(2, value, write_entry_text(1, key, at));
  }
  for (const model::Taint& taint : node.taints) {
    at = write_header(11, texts_size(taint.key, taint.value, &taint.effect), at);
    at = write_text(3, taint.effect, write_text(2, taint.value, write_text(1, taint.key, at)));
  }
  return at;
}

uint8_t* write_node(const model::NodeState& node, const DeviceSizes& device_sizes, uint8_t* at) {
  at = write_text(1, node.name, at);
  at = write_text(2, node.node_group, at);
  at = write_number(3, node.allocatable_cpu_milli, at);
  at = write_number(4, node.allocatable_memory_bytes, at);
  at = write_number(5, node.max_pods, at);
  at = write_number(6, node.allocated_cpu_milli, at);
  at = write_number(7, node.allocated_memory_bytes, at);
  at = write_number(8, node.pod_count, at);
  at = write_node_lists(node, device_sizes, at);
  at = write_number(12, node.schedulable ? 1 : 0, at);
  if (!node.host_ports_in_use.empty()) {
    at = write_header(13, ports_size(node.host_ports_in_use), at);
    for (const int32_t port : node.host_ports_in_use) {
      at = CodedOutputStream::WriteVarint64ToArray(static_cast<uint64_t>(int64_t{port}), at);
    }
  }
  return at;
}

/// One node delta, appended; of a removal only the node's name travels.
void write_delta(const model::SharedNodeChange& change, std::string& out) {
  const model::NodeState& node = *change.node;
  const bool removal = change.kind == model::NodeChangeKind::Remove;
  DeviceSizes device_sizes;
  const size_t node_body = removal ? text_size(node.name) : node_size(node, device_sizes);
  const size_t delta_body = number_size(to_proto(change.kind)) + message_size(node_body);
  const size_t start = out.size();
  out.resize(start + message_size(delta_body));
  uint8_t* at = reinterpret_cast<uint8_t*>(out.data() + start);
  at = write_header(kNodeDeltasField, delta_body, at);
  at = write_number(1, to_proto(change.kind), at);
  at = write_header(2, node_body, at);
  at = removal ? write_text(1, node.name, at) : write_node(node, device_sizes, at);
  if (at != reinterpret_cast<uint8_t*>(out.data() + out.size())) {
    throw std::logic_error("node_wire: a node delta's size was not the size written");
  }
}

}  // namespace

std::optional<model::ViewUpdate> read_update_bytes(std::string_view bytes) {
  if (bytes.size() > static_cast<size_t>(INT32_MAX)) {
    return std::nullopt;
  }
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  WireReader in(data, data + bytes.size());
  std::vector<model::SharedNodeChange> changes;
  std::string envelope_bytes;  // every other field, for the generated parser
  const bool read = read_fields(in, [&](Field field) {
    if (field.tag != tag_of(kNodeDeltasField, kLength)) {
      const bool skipped = in.skip(field.tag);
      envelope_bytes.append(reinterpret_cast<const char*>(field.start),
                            static_cast<size_t>(in.position() - field.start));
      return skipped;
    }
    auto node = std::make_shared<model::NodeState>();
    model::NodeChangeKind kind = model::NodeChangeKind::Update;
    return changes.size() < model::kMaxNodeChangesPerUpdate &&
           read_message(in, [&](WireReader& m) { return read_delta(m, kind, *node); }) &&
           (changes.push_back({kind, std::move(node)}), true);
  });
  v1::IncrementalUpdate envelope;
  if (!read || !envelope.ParseFromString(envelope_bytes)) {
    return std::nullopt;
  }
  auto update = from_proto(envelope);
  if (!update) {
    return std::nullopt;
  }
  update->changes = std::move(changes);
  return std::move(*update);
}

void write_update_bytes(const model::ViewUpdate& update, std::string& out) {
  // In field order, as the generated code writes: the position (fields 1-4), the node changes
  // (5), then what else the update says.
  const size_t start = out.size();
  out.resize(start + text_size(update.cluster_id) + 3 * (1 + varint_size(UINT64_MAX)));
  uint8_t* at = reinterpret_cast<uint8_t*>(out.data() + start);
  at = write_text(1, update.cluster_id, at);
  at = write_number(2, static_cast<int64_t>(update.epoch), at);
  at = write_number(3, static_cast<int64_t>(update.base_version), at);
  at = write_number(4, static_cast<int64_t>(update.version), at);
  out.resize(static_cast<size_t>(at - reinterpret_cast<uint8_t*>(out.data())));
  for (const model::SharedNodeChange& change : update.changes) {
    write_delta(change, out);
  }
  v1::IncrementalUpdate after_changes;
  after_changes_to_proto(update, after_changes);
  after_changes.AppendToString(&out);
}

}  // namespace unisched::messages
