#include "messages/snapshot_parts.hpp"

#include <iterator>
#include <utility>

namespace unisched::messages {
namespace {

/// Moves `count` nodes from `from` (starting at `first`) into `to`, with their node revisions.
void move_nodes(v1::ClusterSnapshot& from, int first, int count, v1::ClusterSnapshot& to) {
  for (int i = first; i < first + count; ++i) {
    v1::NodeState& node = *from.mutable_nodes(i);
    if (const auto revision = from.node_revisions().find(node.name());
        revision != from.node_revisions().end()) {
      (*to.mutable_node_revisions())[node.name()] = revision->second;
    }
    *to.add_nodes() = std::move(node);
  }
}

bool same_snapshot(const v1::ClusterSnapshot& a, const v1::ClusterSnapshot& b) {
  return a.cluster_id() == b.cluster_id() && a.epoch() == b.epoch() && a.version() == b.version() &&
         a.parts() == b.parts();
}

std::string part_name(const v1::ClusterSnapshot& message) {
  return "part " + std::to_string(message.part()) + " of " + std::to_string(message.parts());
}

}  // namespace

std::vector<v1::ClusterSnapshot> split_snapshot(v1::ClusterSnapshot whole, size_t nodes_per_part) {
  const size_t nodes = static_cast<size_t>(whole.nodes_size());
  if (nodes <= nodes_per_part || nodes_per_part == 0) {
    std::vector<v1::ClusterSnapshot> one;
    one.push_back(std::move(whole));
    return one;
  }
  const uint32_t parts = static_cast<uint32_t>((nodes + nodes_per_part - 1) / nodes_per_part);
  std::vector<v1::ClusterSnapshot> out(parts);
  for (uint32_t part = 0; part < parts; ++part) {
    v1::ClusterSnapshot& message = out[part];
    message.set_cluster_id(whole.cluster_id());
    message.set_epoch(whole.epoch());
    message.set_version(whole.version());
    message.set_agent_version(whole.agent_version());
    message.set_part(part);
    message.set_parts(parts);
    const size_t first = part * nodes_per_part;
    move_nodes(whole, static_cast<int>(first),
               static_cast<int>(std::min(nodes_per_part, nodes - first)), message);
  }
  // Part 0 also carries what is not per node.
  whole.clear_nodes();
  whole.clear_node_revisions();
  whole.clear_cluster_id();
  whole.clear_epoch();
  whole.clear_version();
  whole.clear_agent_version();
  out[0].MergeFrom(whole);
  return out;
}

model::Expected<std::optional<v1::ClusterSnapshot>, std::string> SnapshotAssembler::add(
    v1::ClusterSnapshot message) {
  using Result = model::Expected<std::optional<v1::ClusterSnapshot>, std::string>;
  if (message.parts() == 0) {
    if (message.part() != 0) {
      collecting_.reset();
      return Result(std::string("part: Invalid value: " + std::to_string(message.part()) +
                                ": a whole snapshot (parts 0) has no part number"));
    }
    collecting_.reset();
    return Result(std::optional<v1::ClusterSnapshot>(std::move(message)));
  }
  if (message.parts() > kMaxSnapshotParts || message.part() >= message.parts() ||
      static_cast<size_t>(message.nodes_size()) > kMaxNodesPerSnapshotPart) {
    collecting_.reset();
    return Result(std::string(part_name(message) + " with " + std::to_string(message.nodes_size()) +
                              " nodes: a snapshot has at most " +
                              std::to_string(kMaxSnapshotParts) + " parts of at most " +
                              std::to_string(kMaxNodesPerSnapshotPart) + " nodes each"));
  }
  if (message.part() == 0) {
    collecting_ = std::move(message);
    next_part_ = 1;
  } else if (collecting_ && same_snapshot(*collecting_, message) &&
             message.part() + 1 == next_part_) {
    return Result(std::optional<v1::ClusterSnapshot>());  // a repeat of the part just taken
  } else if (!collecting_ || !same_snapshot(*collecting_, message) ||
             message.part() != next_part_) {
    const std::string expected = collecting_ ? "part " + std::to_string(next_part_) +
                                                   " of the snapshot at version " +
                                                   std::to_string(collecting_->version())
                                             : std::string("part 0");
    collecting_.reset();
    return Result(std::string(part_name(message) + " at version " +
                              std::to_string(message.version()) + ": expected " + expected));
  } else {
    move_nodes(message, 0, message.nodes_size(), *collecting_);
    ++next_part_;
  }
  if (next_part_ < collecting_->parts()) {
    return Result(std::optional<v1::ClusterSnapshot>());
  }
  v1::ClusterSnapshot whole = std::move(*collecting_);
  collecting_.reset();
  whole.clear_part();
  whole.clear_parts();
  return Result(std::optional<v1::ClusterSnapshot>(std::move(whole)));
}

v1::SnapshotRequest SnapshotAssembler::next_request() const {
  v1::SnapshotRequest request;
  if (collecting_) {
    request.mutable_cluster()->set_cluster_id(collecting_->cluster_id());
    request.set_part(next_part_);
    request.set_epoch(collecting_->epoch());
    request.set_version(collecting_->version());
  }
  return request;
}

v1::ClusterSnapshot SnapshotParts::start(v1::ClusterSnapshot whole) {
  std::vector<v1::ClusterSnapshot> parts = split_snapshot(std::move(whole));
  // Moved, not copied: part 0 is answered once, and copying a whole view cost about as much
  // as building it (snapshot_serve in the micro-benchmarks).
  v1::ClusterSnapshot first = std::move(parts.front());
  epoch_ = first.epoch();
  version_ = first.version();
  later_.clear();
  later_.reserve(parts.size() - 1);
  std::move(parts.begin() + 1, parts.end(), std::back_inserter(later_));
  return first;
}

model::Expected<v1::ClusterSnapshot, std::string> SnapshotParts::part(
    const v1::SnapshotRequest& request) const {
  using Result = model::Expected<v1::ClusterSnapshot, std::string>;
  if (request.part() == 0 || request.part() > later_.size() || epoch_ != request.epoch() ||
      version_ != request.version()) {
    return Result(std::string("part " + std::to_string(request.part()) +
                              " of the snapshot at version " + std::to_string(request.version()) +
                              " is no longer kept: pull again from part 0"));
  }
  return Result(later_[request.part() - 1]);
}

}  // namespace unisched::messages
