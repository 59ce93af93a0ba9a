// A metadata agent's whole state as its ClusterActor receives it, whole or one part of it
// (messages/snapshot_parts). Inside a process it shares the agent's own snapshot, down to the
// node states the agent published: a resync copies and encodes no node. Across a link it
// travels as the ClusterSnapshot it converts to (messages/caf_types.hpp), the seed's schema's
// bytes. A ClusterSnapshot that is no valid snapshot is read with the reason, which goes with it
// over any further link, so that the ClusterActor refuses it with that reason (as AgentUpdate).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "messages/unisched.pb.h"
#include "model/view_update.hpp"

namespace unisched::messages {

struct AgentSnapshot {
  /// Never null once received: the whole snapshot, or one part's share of it (part 0 carries
  /// everything but the later parts' nodes). Of a malformed one only its position (cluster,
  /// epoch, version) is read.
  std::shared_ptr<const model::ViewSnapshot> snapshot;
  uint32_t part = 0;
  uint32_t parts = 0;   ///< 0: the snapshot is whole
  std::string problem;  ///< why the snapshot is malformed; empty when it is not
};

/// Shares a whole snapshot as it is.
AgentSnapshot share_snapshot(model::ViewSnapshot snapshot);
/// A ClusterSnapshot (whole or a part) read as an AgentSnapshot: its nodes as shared states, or
/// its position and why it is malformed (naming the field).
AgentSnapshot read_snapshot(const v1::ClusterSnapshot& message);
/// The ClusterSnapshot of an agent snapshot, with its part number.
v1::ClusterSnapshot to_proto(const AgentSnapshot& snapshot);

/// The ClusterSnapshot bytes of an agent snapshot (of a malformed one, its position).
std::string encode_snapshot(const AgentSnapshot& snapshot);
/// Reads such bytes back, with the problem they travelled with; false when they are no
/// ClusterSnapshot (nothing is kept then).
bool decode_snapshot(const std::string& bytes, std::string problem, AgentSnapshot& out);

}  // namespace unisched::messages
