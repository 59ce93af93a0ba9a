// Writing an update's node changes straight into IncrementalUpdate bytes (messages/node_wire.hpp).
#include <absl/container/inlined_vector.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <stdexcept>

#include "messages/convert.hpp"
#include "messages/node_wire.hpp"
#include "messages/unisched.pb.h"

namespace unisched::messages {
namespace {

using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedOutputStream;

constexpr int kVarint = WireFormatLite::WIRETYPE_VARINT;
constexpr int kLength = WireFormatLite::WIRETYPE_LENGTH_DELIMITED;
constexpr int kNodeDeltasField = v1::IncrementalUpdate::kNodeDeltasFieldNumber;

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

/// The body of a packed repeated int32 field (negative numbers sign-extended to 64 bits).
template <class Int32s>
size_t int32s_size(const Int32s& values) {
  size_t size = 0;
  for (const int32_t value : values) {
    size += varint_size(static_cast<uint64_t>(int64_t{value}));
  }
  return size;
}

/// A packed repeated int32 field; nothing when empty.
template <class Int32s>
uint8_t* write_int32s(int number, const Int32s& values, uint8_t* at) {
  if (values.empty()) {
    return at;
  }
  at = write_header(number, int32s_size(values), at);
  for (const int32_t value : values) {
    at = CodedOutputStream::WriteVarint64ToArray(static_cast<uint64_t>(int64_t{value}), at);
  }
  return at;
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
    size += message_size(int32s_size(node.host_ports_in_use));
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
  return write_int32s(13, node.host_ports_in_use, at);
}

/// A node's usage as written: from a NodeUsage, or from a node's state without a copy of its
/// lists but the device shares.
struct UsageFields {
  const std::string& name;
  int64_t allocated_cpu_milli;
  int64_t allocated_memory_bytes;
  int32_t pod_count;
  absl::InlinedVector<int32_t, 16> device_allocated_milli;
  const std::vector<int32_t>& host_ports_in_use;

  explicit UsageFields(const model::NodeUsage& usage)
      : name(usage.name),
        allocated_cpu_milli(usage.allocated_cpu_milli),
        allocated_memory_bytes(usage.allocated_memory_bytes),
        pod_count(usage.pod_count),
        device_allocated_milli(usage.device_allocated_milli.begin(),
                               usage.device_allocated_milli.end()),
        host_ports_in_use(usage.host_ports_in_use) {}
  explicit UsageFields(const model::NodeState& node)
      : name(node.name),
        allocated_cpu_milli(node.allocated_cpu_milli),
        allocated_memory_bytes(node.allocated_memory_bytes),
        pod_count(node.pod_count),
        host_ports_in_use(node.host_ports_in_use) {
    for (const model::Device& device : node.devices) {
      device_allocated_milli.push_back(device.allocated_milli);
    }
  }
};

size_t usage_size(const UsageFields& usage) {
  size_t size = text_size(usage.name) + number_size(usage.allocated_cpu_milli) +
                number_size(usage.allocated_memory_bytes) + number_size(usage.pod_count);
  if (!usage.device_allocated_milli.empty()) {
    size += message_size(int32s_size(usage.device_allocated_milli));
  }
  if (!usage.host_ports_in_use.empty()) {
    size += message_size(int32s_size(usage.host_ports_in_use));
  }
  return size;
}

uint8_t* write_usage(const UsageFields& usage, uint8_t* at) {
  at = write_text(1, usage.name, at);
  at = write_number(2, usage.allocated_cpu_milli, at);
  at = write_number(3, usage.allocated_memory_bytes, at);
  at = write_number(4, usage.pod_count, at);
  at = write_int32s(5, usage.device_allocated_milli, at);
  return write_int32s(6, usage.host_ports_in_use, at);
}

/// One USAGE delta, appended.
void write_usage_delta(const UsageFields& usage, std::string& out) {
  const size_t usage_body = usage_size(usage);
  const size_t delta_body = number_size(v1::NodeDelta::USAGE) + message_size(usage_body);
  const size_t start = out.size();
  out.resize(start + message_size(delta_body));
  uint8_t* at = reinterpret_cast<uint8_t*>(out.data() + start);
  at = write_header(kNodeDeltasField, delta_body, at);
  at = write_number(1, v1::NodeDelta::USAGE, at);
  at = write_usage(usage, write_header(3, usage_body, at));
  if (at != reinterpret_cast<uint8_t*>(out.data() + out.size())) {
    throw std::logic_error("node_wire: a usage delta's size was not the size written");
  }
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

size_t node_wire_size(const model::NodeState& node) {
  DeviceSizes device_sizes;
  return node_size(node, device_sizes);
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
    if (sent_as_usage(change)) {
      write_usage_delta(UsageFields(*change.node), out);
    } else {
      write_delta(change, out);
    }
  }
  for (const model::NodeUsage& usage : update.usage_changes) {
    write_usage_delta(UsageFields(usage), out);
  }
  v1::IncrementalUpdate after_changes;
  after_changes_to_proto(update, after_changes);
  after_changes.AppendToString(&out);
}

}  // namespace unisched::messages
