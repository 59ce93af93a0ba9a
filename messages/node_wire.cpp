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
using google::protobuf::io::CodedInputStream;
using google::protobuf::io::CodedOutputStream;

constexpr int kVarint = WireFormatLite::WIRETYPE_VARINT;
constexpr int kLength = WireFormatLite::WIRETYPE_LENGTH_DELIMITED;
constexpr int kNodeDeltasField = v1::IncrementalUpdate::kNodeDeltasFieldNumber;

// ---- Reading ------------------------------------------------------------------------------

/// A field as its tag and the position where the tag starts.
struct Field {
  uint32_t tag;
  int start;
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

/// Whether the varint read since `start` took no more bytes than `value` needs. Every encoder
/// writes the shortest form; a longer one is left to the generated parser, whose limits on
/// such forms CodedInputStream does not share in every case (found by fuzzing).
bool canonical(const CodedInputStream& in, int start, uint64_t value) {
  return in.CurrentPosition() - start == static_cast<int>(CodedOutputStream::VarintSize64(value));
}

bool read_varint(CodedInputStream& in, uint64_t& value) {
  const int start = in.CurrentPosition();
  return in.ReadVarint64(&value) && canonical(in, start, value);
}

/// A length that fits in what is left of the message. Read as 64 bits: ReadVarint32 would keep
/// the low bits of a longer varint, which the generated parser refuses (found by fuzzing).
bool read_length(CodedInputStream& in, uint32_t& length) {
  uint64_t value = 0;
  if (!read_varint(in, value) || value > static_cast<uint64_t>(in.BytesUntilLimit())) {
    return false;
  }
  length = static_cast<uint32_t>(value);
  return true;
}

/// A length-delimited field's bytes, without a copy (they live as long as the input).
bool read_bytes(CodedInputStream& in, std::string_view& out) {
  uint32_t length = 0;
  if (!read_length(in, length)) {
    return false;
  }
  if (length == 0) {
    out = {};
    return true;
  }
  const void* data = nullptr;
  int available = 0;  // up to the innermost limit
  if (!in.GetDirectBufferPointer(&data, &available) || length > static_cast<uint32_t>(available)) {
    return false;
  }
  out = std::string_view(static_cast<const char*>(data), length);
  return in.Skip(static_cast<int>(length));
}

/// Text the generated parser would take too: plain ASCII is always valid UTF-8 (anything else
/// is left to it).
bool read_text(CodedInputStream& in, std::string_view& out) {
  return read_bytes(in, out) && plain_ascii(out);
}

/// A varint field as int64, or as int32 (also enums and bools): then its low 32 bits are the
/// value (negative numbers travel sign-extended to 64 bits).
template <class Int>
bool read_number(CodedInputStream& in, Int& out) {
  uint64_t value = 0;
  if (!read_varint(in, value)) {
    return false;
  }
  out = static_cast<Int>(value);
  return true;
}

/// Reads the embedded message that follows with `read_fields`, which sees only its bytes.
template <class ReadFields>
bool read_message(CodedInputStream& in, ReadFields read_fields) {
  uint32_t length = 0;
  // An inner limit past the outer one would be cut to it silently: such a length is a lie.
  if (!read_length(in, length)) {
    return false;
  }
  const CodedInputStream::Limit outer = in.PushLimit(static_cast<int>(length));
  const bool read = read_fields() && in.BytesUntilLimit() == 0;
  in.PopLimit(outer);
  return read;
}

/// Hands each field of the current message to `read_field(field)` until the message ends; false
/// at the first field it does not read or at bytes that are no field.
template <class ReadField>
bool read_fields(CodedInputStream& in, ReadField read_field) {
  for (;;) {
    const int start = in.CurrentPosition();
    const uint32_t tag = in.ReadTag();
    if (tag == 0) {  // the message's end, or bytes that are no tag (a zero, a cut varint)
      return in.CurrentPosition() == start && in.BytesUntilLimit() == 0;
    }
    if (!canonical(in, start, tag)) {  // ReadTag keeps the low bits of an overlong one
      return false;
    }
    if (!read_field(Field{tag, start})) {
      return false;
    }
  }
}

bool read_device(CodedInputStream& in, model::Device& device) {
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
bool read_texts(CodedInputStream& in, std::string_view (&texts)[3], int count) {
  return read_fields(in, [&](Field field) {
    const int number = field.number();
    return WireFormatLite::GetTagWireType(field.tag) == kLength && number >= 1 && number <= count &&
           read_text(in, texts[number - 1]);
  });
}

/// Host ports, one (unpacked) or a packed run of them.
bool read_host_ports(CodedInputStream& in, bool packed, std::vector<int32_t>& ports) {
  int32_t port = 0;
  if (!packed) {
    return read_number(in, port) && (ports.push_back(port), true);
  }
  return read_message(in, [&] {
    while (in.BytesUntilLimit() > 0) {
      if (!read_number(in, port)) {
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
bool read_node_part(CodedInputStream& in, Field field, model::NodeState& node, NodeLists& lists) {
  std::string_view texts[3];
  switch (field.tag) {
    case tag_of(1, kLength):
      return read_text(in, texts[0]) && (node.name.assign(texts[0]), true);
    case tag_of(2, kLength):
      return read_text(in, texts[0]) && (node.node_group.assign(texts[0]), true);
    case tag_of(9, kLength):
      return read_message(in, [&] { return read_device(in, lists.devices.emplace_back()); });
    case tag_of(10, kLength):
      return read_message(in, [&] { return read_texts(in, texts, 2); }) &&
             (lists.labels.insert_or_assign(std::string(texts[0]), std::string(texts[1])), true);
    case tag_of(11, kLength):
      return read_message(in, [&] { return read_texts(in, texts, 3); }) &&
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

bool read_node(CodedInputStream& in, model::NodeState& node) {
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

bool read_delta(CodedInputStream& in, model::NodeChange& change) {
  int32_t op = 0;
  bool has_node = false;  // a second one would merge into the first: left to the full reader
  change.node.schedulable = false;  // proto3's default, which a delta without its node has
  const bool read = read_fields(in, [&](Field field) {
    if (field.tag == tag_of(1, kVarint)) {
      return read_number(in, op);
    }
    return field.tag == tag_of(2, kLength) && !has_node &&
           (has_node = true, read_message(in, [&] { return read_node(in, change.node); }));
  });
  const auto kind = change_kind_of(op);
  if (!read || !kind) {
    return false;
  }
  change.kind = *kind;
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

size_t node_size(const model::NodeState& node) {
  size_t size = text_size(node.name) + text_size(node.node_group) +
                number_size(node.allocatable_cpu_milli) +
                number_size(node.allocatable_memory_bytes) + number_size(node.max_pods) +
                number_size(node.allocated_cpu_milli) + number_size(node.allocated_memory_bytes) +
                number_size(node.pod_count) + number_size(node.schedulable ? 1 : 0);
  for (const model::Device& device : node.devices) {
    size += message_size(device_size(device));
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

uint8_t* write_node_lists(const model::NodeState& node, uint8_t* at) {
  for (const model::Device& device : node.devices) {
    at = write_device(device, write_header(9, device_size(device), at));
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

uint8_t* write_node(const model::NodeState& node, uint8_t* at) {
  at = write_text(1, node.name, at);
  at = write_text(2, node.node_group, at);
  at = write_number(3, node.allocatable_cpu_milli, at);
  at = write_number(4, node.allocatable_memory_bytes, at);
  at = write_number(5, node.max_pods, at);
  at = write_number(6, node.allocated_cpu_milli, at);
  at = write_number(7, node.allocated_memory_bytes, at);
  at = write_number(8, node.pod_count, at);
  at = write_node_lists(node, at);
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
  const size_t node_body = removal ? text_size(node.name) : node_size(node);
  const size_t delta_body = number_size(to_proto(change.kind)) + message_size(node_body);
  const size_t start = out.size();
  out.resize(start + message_size(delta_body));
  uint8_t* at = reinterpret_cast<uint8_t*>(out.data() + start);
  at = write_header(kNodeDeltasField, delta_body, at);
  at = write_number(1, to_proto(change.kind), at);
  at = write_header(2, node_body, at);
  at = removal ? write_text(1, node.name, at) : write_node(node, at);
  if (at != reinterpret_cast<uint8_t*>(out.data() + out.size())) {
    throw std::logic_error("node_wire: a node delta's size was not the size written");
  }
}

}  // namespace

std::optional<model::ViewUpdate> read_update_bytes(std::string_view bytes) {
  if (bytes.size() > static_cast<size_t>(INT32_MAX)) {
    return std::nullopt;
  }
  CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                      static_cast<int>(bytes.size()));
  in.PushLimit(static_cast<int>(bytes.size()));  // so that the end reads as a message's end
  std::vector<model::SharedNodeChange> changes;
  std::string envelope_bytes;  // every other field, for the generated parser
  const bool read = read_fields(in, [&](Field field) {
    if (field.tag != tag_of(kNodeDeltasField, kLength)) {
      const bool skipped = WireFormatLite::SkipField(&in, field.tag);
      envelope_bytes.append(bytes.substr(static_cast<size_t>(field.start),
                                         static_cast<size_t>(in.CurrentPosition() - field.start)));
      return skipped;
    }
    model::NodeChange change;
    return changes.size() < model::kMaxNodeChangesPerUpdate &&
           read_message(in, [&] { return read_delta(in, change); }) &&
           (changes.push_back(model::share(std::move(change))), true);
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
