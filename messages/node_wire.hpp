// The node changes of an IncrementalUpdate read from and written to its bytes directly, without
// protobuf's message objects: across a link an update is mostly its node states, and building
// each as a message (a string, a sub-message and an allocation per device) before converting
// it to the model cost more than everything else the centre does with it.
//
// Only the node changes (field 5: whole states, and usage alone, which is read into
// ViewUpdate::usage_changes) are read here; every other field of the update still goes
// through the generated parser and messages/convert, so it keeps their meaning and their errors.
// Whatever is unusual (an unknown field, a wire type the schema does not give, text that is not
// plain ASCII, a value the model refuses) is not read here at all: the caller reads the whole
// update the ordinary way, which names the field and the reason. The bytes written are those the
// generated code writes for messages::to_proto of the same update (but for the order of map
// entries, which protobuf leaves open).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "model/view_update.hpp"

namespace unisched::messages {

/// The update the bytes hold, read directly; nullopt when they are not read here (not a
/// message, or anything unusual): then read them with v1::IncrementalUpdate and from_proto.
std::optional<model::ViewUpdate> read_update_bytes(std::string_view bytes);

/// Appends the IncrementalUpdate bytes of `update` to `out`.
void write_update_bytes(const model::ViewUpdate& update, std::string& out);

/// The bytes of `node` as a NodeState message (what it adds to a message that carries it).
size_t node_wire_size(const model::NodeState& node);

}  // namespace unisched::messages
