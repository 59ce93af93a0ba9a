// Conversion between the wire schema (unisched.proto) and the model types, at the edges only.
// Decoding validates what the schema cannot (unknown enum values, out-of-range integers).
#pragma once

#include <string>

#include "messages/unisched.pb.h"
#include "model/expected.hpp"
#include "model/view_update.hpp"

namespace unisched::messages {

v1::IncrementalUpdate to_proto(const model::ViewUpdate& update);
/// The same into a message the caller made (on an arena, say); `out` starts empty.
void to_proto(const model::ViewUpdate& update, v1::IncrementalUpdate& out);
void to_proto(const model::Reservation& reservation, v1::Placement& out);
model::Reservation from_proto(const v1::Placement& placement);
v1::ClusterSnapshot to_proto(const model::ViewSnapshot& snapshot);
void to_proto(const model::ViewSnapshot& snapshot, v1::ClusterSnapshot& out);

/// Why an update of `count` node changes is refused (more than model::kMaxNodeChangesPerUpdate).
std::string too_many_node_deltas(int count);

/// The update, or why it is malformed (naming the field, e.g. "node_deltas[2].op", or too many
/// node changes).
model::Expected<model::ViewUpdate, std::string> from_proto(const v1::IncrementalUpdate& update);
model::Expected<model::ViewSnapshot, std::string> from_proto(const v1::ClusterSnapshot& snapshot);

}  // namespace unisched::messages
