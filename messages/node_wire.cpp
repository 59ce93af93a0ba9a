#include "messages/node_wire.hpp"

#include <absl/container/inlined_vector.h>
#include <google/protobuf/wire_format_lite.h>

#include "messages/convert.hpp"
#include "messages/unisched.pb.h"

namespace unisched::messages {
namespace {

using google::protobuf::internal::WireFormatLite;

constexpr int kVarint = WireFormatLite::WIRETYPE_VARINT;
constexpr int kLength = WireFormatLite::WIRETYPE_LENGTH_DELIMITED;
constexpr int kNodeDeltasField = v1::IncrementalUpdate::kNodeDeltasFieldNumber;

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

/// A repeated int32 field: one value (unpacked) or a packed run of them.
template <class Int32s>
bool read_int32s(WireReader& in, bool packed, Int32s& values) {
  int32_t value = 0;
  if (!packed) {
    return read_number(in, value) && (values.push_back(value), true);
  }
  return read_message(in, [&](WireReader& run) {
    while (!run.done()) {
      if (!read_number(run, value)) {
        return false;
      }
      values.push_back(value);
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
      return read_int32s(in, false, node.host_ports_in_use);
    case tag_of(13, kLength):
      return read_int32s(in, true, node.host_ports_in_use);
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

bool read_usage(WireReader& in, model::NodeUsage& usage) {
  return read_fields(in, [&](Field field) {
    std::string_view name;
    switch (field.tag) {
      case tag_of(1, kLength):
        return read_text(in, name) && (usage.name.assign(name), true);
      case tag_of(2, kVarint):
        return read_number(in, usage.allocated_cpu_milli);
      case tag_of(3, kVarint):
        return read_number(in, usage.allocated_memory_bytes);
      case tag_of(4, kVarint):
        return read_number(in, usage.pod_count);
      case tag_of(5, kVarint):
        return read_int32s(in, false, usage.device_allocated_milli);
      case tag_of(5, kLength):
        return read_int32s(in, true, usage.device_allocated_milli);
      case tag_of(6, kVarint):
        return read_int32s(in, false, usage.host_ports_in_use);
      case tag_of(6, kLength):
        return read_int32s(in, true, usage.host_ports_in_use);
      default:
        return false;
    }
  });
}

/// A delta's node (made shared as it is met, so that the state is read where it will stay) or
/// usage, added to `changes` or `usages`. A second node or usage in one delta would merge into
/// the first: left to the full reader, as are the forms it refuses.
bool read_delta(WireReader& in, std::vector<model::SharedNodeChange>& changes,
                std::vector<model::NodeUsage>& usages) {
  int32_t op = 0;
  std::shared_ptr<model::NodeState> node;
  model::NodeUsage* usage = nullptr;
  const bool read = read_fields(in, [&](Field field) {
    switch (field.tag) {
      case tag_of(1, kVarint):
        return read_number(in, op);
      case tag_of(2, kLength):
        return !node && (node = std::make_shared<model::NodeState>(),
                         read_message(in, [&](WireReader& m) { return read_node(m, *node); }));
      case tag_of(3, kLength):
        return usage == nullptr &&
               (usage = &usages.emplace_back(),
                read_message(in, [&](WireReader& m) { return read_usage(m, *usage); }));
      default:
        return false;
    }
  });
  if (!read) {
    return false;
  }
  if (op == v1::NodeDelta::USAGE) {
    if (usage == nullptr) {
      usages.emplace_back();  // proto3's default: a usage of no name, refused where it is put
    }
    return !node;
  }
  const auto kind = change_kind_of(op);
  if (!kind || usage != nullptr) {
    return false;
  }
  if (!node) {
    node = std::make_shared<model::NodeState>();
    node->schedulable = false;  // proto3's default, which a delta without its node has
  }
  changes.push_back({*kind, std::move(node)});
  return true;
}

}  // namespace

std::optional<model::ViewUpdate> read_update_bytes(std::string_view bytes) {
  if (bytes.size() > static_cast<size_t>(INT32_MAX)) {
    return std::nullopt;
  }
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  WireReader in(data, data + bytes.size());
  std::vector<model::SharedNodeChange> changes;
  std::vector<model::NodeUsage> usages;
  std::string envelope_bytes;  // every other field, for the generated parser
  const bool read = read_fields(in, [&](Field field) {
    if (field.tag != tag_of(kNodeDeltasField, kLength)) {
      const bool skipped = in.skip(field.tag);
      envelope_bytes.append(reinterpret_cast<const char*>(field.start),
                            static_cast<size_t>(in.position() - field.start));
      return skipped;
    }
    return changes.size() + usages.size() < model::kMaxNodeChangesPerUpdate &&
           read_message(in, [&](WireReader& m) { return read_delta(m, changes, usages); });
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
  update->usage_changes = std::move(usages);
  return std::move(*update);
}

}  // namespace unisched::messages
