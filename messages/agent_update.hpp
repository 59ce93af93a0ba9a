// One update of a metadata agent as its ClusterActor receives it. Inside a process it is the
// agent's own update, shared and read-only down to the node states: the centre holds the states
// the agent published, with no encoding and no copy between them. Across a link it travels as
// the IncrementalUpdate it converts to (messages/caf_types.hpp), the bytes the seed's schema
// gives it. An IncrementalUpdate that is no valid update is read with the reason, which goes
// with it over any further link, so that the ClusterActor refuses it with that reason.
#pragma once

#include <memory>
#include <string>

#include "messages/unisched.pb.h"
#include "model/view_update.hpp"

namespace unisched::messages {

struct AgentUpdate {
  /// Never null once received; of a malformed update only its position (cluster, epoch,
  /// versions) is read.
  std::shared_ptr<const model::ViewUpdate> update;
  std::string problem;  ///< why the update is malformed; empty when it is not
};

/// Shares an agent's update as it is.
AgentUpdate share_update(model::ViewUpdate update);
/// An IncrementalUpdate read as an AgentUpdate: the update, or its position and why it is
/// malformed (naming the field).
AgentUpdate read_update(const v1::IncrementalUpdate& message);

/// The IncrementalUpdate bytes of an agent update (of a malformed one, its position).
std::string encode_update(const AgentUpdate& update);
/// Reads such bytes back, with the problem they travelled with; false when they are no
/// IncrementalUpdate (nothing is kept then).
bool decode_update(const std::string& bytes, std::string problem, AgentUpdate& out);

}  // namespace unisched::messages
