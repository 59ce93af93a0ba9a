// Snapshots larger than one message travel in parts (ClusterSnapshot.part and .parts): split by
// the sender, collected in order by the receiver, and pulled part by part where the receiver
// asks (SnapshotRequest.part). Each part carries at most kMaxNodesPerSnapshotPart nodes, the
// same bound as an update's node changes, and at most kMaxSnapshotPartBytes of them (unless one
// node alone is larger), so no message grows with the cluster or with its nodes' size.
//
// The same rules hold for both forms a snapshot takes: the schema's ClusterSnapshot (gRPC
// agents and clients) and the AgentSnapshot that CAF agents send their ClusterActor (shared
// model states in one process). SnapshotPartTraits says how each form is split and joined.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "messages/agent_snapshot.hpp"
#include "messages/unisched.pb.h"
#include "model/expected.hpp"
#include "model/view_update.hpp"

namespace unisched::messages {

inline constexpr size_t kMaxNodesPerSnapshotPart = model::kMaxNodeChangesPerUpdate;
/// The bytes of nodes a part carries at most: a quarter of the 64 MiB a BASP message may be.
inline constexpr size_t kMaxSnapshotPartBytes = 16 << 20;
/// The most bytes one node may take as a message: its agent leaves a larger one out, saying so
/// (no real node comes near: 4,096 devices and every label Kubernetes lets a node keep take well
/// under 1 MiB), so that no node alone outgrows a part or a BASP message.
inline constexpr size_t kMaxNodeWireBytes = 4 << 20;
/// Parts of one snapshot at most: 10 million nodes, 16 GiB.
inline constexpr uint32_t kMaxSnapshotParts = 1'000;

/// When a sender starts a new part.
struct PartLimits {
  size_t nodes = kMaxNodesPerSnapshotPart;
  size_t bytes = kMaxSnapshotPartBytes;
};

/// Which snapshot a part belongs to, and where in it.
struct PartPosition {
  std::string cluster_id;
  uint64_t epoch = 0;
  uint64_t version = 0;
  uint32_t part = 0;
  uint32_t parts = 0;  ///< 0: a whole snapshot
  size_t nodes = 0;
};

/// How parts of one form are read, split and joined: Part is what travels, Whole what a
/// receiver collects them into.
template <class Part>
struct SnapshotPartTraits;

template <>
struct SnapshotPartTraits<v1::ClusterSnapshot> {
  using Whole = v1::ClusterSnapshot;
  static PartPosition position(const v1::ClusterSnapshot& part);
  /// The generated parser read it: its content is checked where it is converted.
  static std::optional<std::string> problem(const v1::ClusterSnapshot&) { return std::nullopt; }
  static Whole begin(v1::ClusterSnapshot first);
  static void append(Whole& whole, v1::ClusterSnapshot part);
  static void finish(Whole& whole);
  static std::vector<v1::ClusterSnapshot> split(Whole whole, const PartLimits& limits);
};

template <>
struct SnapshotPartTraits<AgentSnapshot> {
  using Whole = model::ViewSnapshot;
  static PartPosition position(const AgentSnapshot& part);
  static std::optional<std::string> problem(const AgentSnapshot& part);
  static Whole begin(AgentSnapshot first);
  static void append(Whole& whole, AgentSnapshot part);
  static void finish(Whole&) {}
  /// Parts share the whole's node states: splitting copies pointers, not nodes.
  static std::vector<AgentSnapshot> split(Whole whole, const PartLimits& limits);
};

/// `whole` as parts within `limits`, part 0 carrying everything but the other parts' nodes;
/// `whole` itself (parts 0) when it fits in one.
template <class Part>
std::vector<Part> split_into_parts(typename SnapshotPartTraits<Part>::Whole whole,
                                   const PartLimits& limits = {}) {
  return SnapshotPartTraits<Part>::split(std::move(whole), limits);
}
inline std::vector<v1::ClusterSnapshot> split_snapshot(v1::ClusterSnapshot whole,
                                                       const PartLimits& limits = {}) {
  return split_into_parts<v1::ClusterSnapshot>(std::move(whole), limits);
}

/// Collects the parts of one snapshot, in order.
template <class Part>
class BasicSnapshotAssembler {
 public:
  using Whole = typename SnapshotPartTraits<Part>::Whole;

  /// The whole snapshot once `message` completes it (a message with parts 0 is whole at once);
  /// nullopt while parts are missing or when `message` repeats the part just taken; an error,
  /// naming the field, when it is no part of the snapshot being collected (which is dropped).
  /// Part 0 starts a new snapshot, dropping one not finished.
  model::Expected<std::optional<Whole>, std::string> add(Part message);

  bool collecting() const { return collecting_.has_value(); }
  /// The part to ask for next, and the snapshot it belongs to (while collecting).
  v1::SnapshotRequest next_request() const;
  void reset() { collecting_.reset(); }

 private:
  std::optional<Whole> collecting_;
  PartPosition first_;  // of the snapshot being collected
  uint32_t next_part_ = 0;
};

/// The parts of the last snapshot a sender split, kept to answer the pulls of its later parts.
template <class Part>
class BasicSnapshotParts {
 public:
  using Whole = typename SnapshotPartTraits<Part>::Whole;

  /// Splits `whole`, keeps its later parts and returns the first.
  Part start(Whole whole);
  /// A later part (request.part() > 0) of the snapshot kept; an error when it is no longer
  /// kept (the receiver then starts again from part 0, which start() answers).
  model::Expected<Part, std::string> part(const v1::SnapshotRequest& request) const;

 private:
  uint64_t epoch_ = 0;  // of the snapshot whose later parts are kept
  uint64_t version_ = 0;
  std::vector<Part> later_;  // parts 1.. of it
};

using SnapshotAssembler = BasicSnapshotAssembler<v1::ClusterSnapshot>;
using SnapshotParts = BasicSnapshotParts<v1::ClusterSnapshot>;
using AgentSnapshotAssembler = BasicSnapshotAssembler<AgentSnapshot>;
using AgentSnapshotParts = BasicSnapshotParts<AgentSnapshot>;

extern template class BasicSnapshotAssembler<v1::ClusterSnapshot>;
extern template class BasicSnapshotAssembler<AgentSnapshot>;
extern template class BasicSnapshotParts<v1::ClusterSnapshot>;
extern template class BasicSnapshotParts<AgentSnapshot>;

}  // namespace unisched::messages
