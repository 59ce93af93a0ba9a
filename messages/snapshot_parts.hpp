// Snapshots larger than one message travel in parts (ClusterSnapshot.part and .parts): split by
// the sender, collected in order by the receiver, and pulled part by part where the receiver
// asks (SnapshotRequest.part). Each part carries at most kMaxNodesPerSnapshotPart nodes, the
// same bound as an update's node changes, so no message grows with the cluster.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "messages/unisched.pb.h"
#include "model/expected.hpp"
#include "model/view_update.hpp"

namespace unisched::messages {

inline constexpr size_t kMaxNodesPerSnapshotPart = model::kMaxNodeChangesPerUpdate;
/// Parts of one snapshot at most: 10 million nodes.
inline constexpr uint32_t kMaxSnapshotParts = 1'000;

/// `whole` as parts of at most `nodes_per_part` nodes each, part 0 carrying everything but the
/// other parts' nodes; `whole` itself (parts 0) when it fits in one.
std::vector<v1::ClusterSnapshot> split_snapshot(v1::ClusterSnapshot whole,
                                                size_t nodes_per_part = kMaxNodesPerSnapshotPart);

/// Collects the parts of one snapshot, in order.
class SnapshotAssembler {
 public:
  /// The whole snapshot once `message` completes it (a message with parts 0 is whole at once);
  /// nullopt while parts are missing or when `message` repeats the part just taken; an error,
  /// naming the field, when it is no part of the snapshot being collected (which is dropped).
  /// Part 0 starts a new snapshot, dropping one not finished.
  model::Expected<std::optional<v1::ClusterSnapshot>, std::string> add(v1::ClusterSnapshot message);

  bool collecting() const { return collecting_.has_value(); }
  /// The part to ask for next, and the snapshot it belongs to (while collecting).
  v1::SnapshotRequest next_request() const;
  void reset() { collecting_.reset(); }

 private:
  std::optional<v1::ClusterSnapshot> collecting_;
  uint32_t next_part_ = 0;
};

/// The parts of the last snapshot a sender split, kept to answer the pulls of its later parts.
class SnapshotParts {
 public:
  /// Splits `whole`, keeps its later parts and returns the first.
  v1::ClusterSnapshot start(v1::ClusterSnapshot whole);
  /// A later part (request.part() > 0) of the snapshot kept; an error when it is no longer
  /// kept (the receiver then starts again from part 0, which start() answers).
  model::Expected<v1::ClusterSnapshot, std::string> part(const v1::SnapshotRequest& request) const;

 private:
  uint64_t epoch_ = 0;  // of the snapshot whose later parts are kept
  uint64_t version_ = 0;
  std::vector<v1::ClusterSnapshot> later_;  // parts 1.. of it
};

}  // namespace unisched::messages
