// Conversion between the wire schema (unisched.proto) and the model types, at the edges only.
// Decoding validates what the schema cannot (unknown enum values, out-of-range integers).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "messages/unisched.pb.h"
#include "model/expected.hpp"
#include "model/view_update.hpp"

namespace unisched::messages {

v1::IncrementalUpdate to_proto(const model::ViewUpdate& update);
/// The same into a message the caller made (on an arena, say); `out` starts empty.
void to_proto(const model::ViewUpdate& update, v1::IncrementalUpdate& out);
/// The fields that follow the node changes (resources, health, placements): what
/// messages/node_wire.hpp leaves to the generated code when it writes an update.
void after_changes_to_proto(const model::ViewUpdate& update, v1::IncrementalUpdate& out);
void to_proto(const model::Reservation& reservation, v1::Placement& out);
model::Reservation from_proto(const v1::Placement& placement);
v1::ClusterSnapshot to_proto(const model::ViewSnapshot& snapshot);
void to_proto(const model::ViewSnapshot& snapshot, v1::ClusterSnapshot& out);

v1::Interconnect to_proto(model::Interconnect link);
v1::NodeDelta::Op to_proto(model::NodeChangeKind kind);
/// The change a NodeDelta's op names; nullopt for none of ADD, UPDATE and REMOVE.
std::optional<model::NodeChangeKind> change_kind_of(int32_t op);
/// Whether `change` travels as its node's usage alone (NodeDelta USAGE).
bool sent_as_usage(const model::SharedNodeChange& change);
/// Why a delta's op and fields do not go together (after its path: ".op: ..."), if they do not:
/// an unknown op, a USAGE with a node, or another op with a usage.
std::optional<std::string> delta_form_refusal(const v1::NodeDelta& delta);
void to_proto(const model::NodeUsage& usage, v1::NodeUsage& out);
model::NodeUsage from_proto(const v1::NodeUsage& usage);

/// An Accelerator's fields as the wire has them (enums as their numbers).
struct DeviceFields {
  std::string_view model;
  std::string_view resource;
  int64_t memory_bytes = 0;
  int32_t type = 0;
  int32_t interconnect = 0;
  int32_t topology_group = 0;
  int32_t allocated_milli = 0;
  int32_t link_generation = 0;
};
/// A device from its wire fields, or the field that is wrong and why (without the node's path):
/// what decoding a message and decoding raw bytes (messages/node_wire.hpp) share.
std::optional<std::string> device_from_wire(const DeviceFields& fields, model::Device& device);

/// Why an update of `count` node changes is refused (more than model::kMaxNodeChangesPerUpdate).
std::string too_many_node_deltas(int count);

/// The update, or why it is malformed (naming the field, e.g. "node_deltas[2].op", or too many
/// node changes). A named node with a field the model cannot hold (a device's topology group out
/// of range) is not refused with the rest: it goes into `left_out`, and the centre holds none of
/// it (model::NodeAdmission). The same for a snapshot's nodes.
model::Expected<model::ViewUpdate, std::string> from_proto(const v1::IncrementalUpdate& update);
model::Expected<model::ViewSnapshot, std::string> from_proto(const v1::ClusterSnapshot& snapshot);

}  // namespace unisched::messages
