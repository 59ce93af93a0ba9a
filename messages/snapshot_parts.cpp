#include "messages/snapshot_parts.hpp"

#include "messages/node_wire.hpp"

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

bool same_snapshot(const PartPosition& a, const PartPosition& b) {
  return a.cluster_id == b.cluster_id && a.epoch == b.epoch && a.version == b.version &&
         a.parts == b.parts;
}

std::string part_name(const PartPosition& at) {
  return "part " + std::to_string(at.part) + " of " + std::to_string(at.parts);
}

/// Where each part begins: a new part after `limits.nodes` nodes, or before a node that would
/// take its part past `limits.bytes` (a node larger than that travels alone in its part).
template <class SizeOf>
std::vector<size_t> part_starts(size_t nodes, const PartLimits& limits, SizeOf size_of) {
  std::vector<size_t> starts = {0};
  size_t in_part = 0;
  size_t bytes = 0;
  for (size_t i = 0; i < nodes; ++i) {
    const size_t size = size_of(i);
    if (in_part > 0 && (in_part == limits.nodes || bytes + size > limits.bytes)) {
      starts.push_back(i);
      in_part = 0;
      bytes = 0;
    }
    ++in_part;
    bytes += size;
  }
  return starts;
}

/// The end of part `part` given where each begins.
size_t part_end(const std::vector<size_t>& starts, size_t part, size_t nodes) {
  return part + 1 < starts.size() ? starts[part + 1] : nodes;
}

}  // namespace

PartPosition SnapshotPartTraits<v1::ClusterSnapshot>::position(const v1::ClusterSnapshot& part) {
  return {part.cluster_id(), part.epoch(), part.version(),
          part.part(),       part.parts(), static_cast<size_t>(part.nodes_size())};
}

v1::ClusterSnapshot SnapshotPartTraits<v1::ClusterSnapshot>::begin(v1::ClusterSnapshot first) {
  return first;
}

void SnapshotPartTraits<v1::ClusterSnapshot>::append(v1::ClusterSnapshot& whole,
                                                     v1::ClusterSnapshot part) {
  move_nodes(part, 0, part.nodes_size(), whole);
}

void SnapshotPartTraits<v1::ClusterSnapshot>::finish(v1::ClusterSnapshot& whole) {
  whole.clear_part();
  whole.clear_parts();
}

std::vector<v1::ClusterSnapshot> SnapshotPartTraits<v1::ClusterSnapshot>::split(
    v1::ClusterSnapshot whole, const PartLimits& limits) {
  const size_t nodes = static_cast<size_t>(whole.nodes_size());
  const std::vector<size_t> starts = part_starts(
      nodes, limits, [&](size_t i) { return whole.nodes(static_cast<int>(i)).ByteSizeLong(); });
  if (starts.size() == 1) {
    std::vector<v1::ClusterSnapshot> one;
    one.push_back(std::move(whole));
    return one;
  }
  const auto parts = static_cast<uint32_t>(starts.size());
  std::vector<v1::ClusterSnapshot> out(parts);
  for (uint32_t part = 0; part < parts; ++part) {
    v1::ClusterSnapshot& message = out[part];
    message.set_cluster_id(whole.cluster_id());
    message.set_epoch(whole.epoch());
    message.set_version(whole.version());
    message.set_agent_version(whole.agent_version());
    message.set_part(part);
    message.set_parts(parts);
    const size_t first = starts[part];
    move_nodes(whole, static_cast<int>(first),
               static_cast<int>(part_end(starts, part, nodes) - first), message);
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

PartPosition SnapshotPartTraits<AgentSnapshot>::position(const AgentSnapshot& part) {
  if (!part.snapshot) {
    return {{}, 0, 0, part.part, part.parts, 0};
  }
  const model::ViewSnapshot& snapshot = *part.snapshot;
  return {snapshot.cluster_id, snapshot.epoch, snapshot.version,
          part.part,           part.parts,     snapshot.nodes.size()};
}

std::optional<std::string> SnapshotPartTraits<AgentSnapshot>::problem(const AgentSnapshot& part) {
  if (!part.problem.empty()) {
    return part.problem;
  }
  if (!part.snapshot) {
    return std::string("the snapshot is empty");
  }
  return std::nullopt;
}

model::ViewSnapshot SnapshotPartTraits<AgentSnapshot>::begin(AgentSnapshot first) {
  return *first.snapshot;  // the node states stay shared
}

void SnapshotPartTraits<AgentSnapshot>::append(model::ViewSnapshot& whole, AgentSnapshot part) {
  const model::ViewSnapshot& nodes = *part.snapshot;
  whole.nodes.insert(whole.nodes.end(), nodes.nodes.begin(), nodes.nodes.end());
  whole.node_revisions.insert(nodes.node_revisions.begin(), nodes.node_revisions.end());
}

std::vector<AgentSnapshot> SnapshotPartTraits<AgentSnapshot>::split(model::ViewSnapshot whole,
                                                                    const PartLimits& limits) {
  const size_t nodes = whole.nodes.size();
  const std::vector<size_t> starts =
      part_starts(nodes, limits, [&](size_t i) { return node_wire_size(*whole.nodes[i]); });
  if (starts.size() == 1) {
    return {share_snapshot(std::move(whole))};
  }
  const auto parts = static_cast<uint32_t>(starts.size());
  std::vector<AgentSnapshot> out;
  out.reserve(parts);
  for (uint32_t part = 0; part < parts; ++part) {
    model::ViewSnapshot share;
    if (part == 0) {  // part 0 also carries what is not per node
      share.resources = whole.resources;
      share.applied_placements = std::move(whole.applied_placements);
      share.refused_placements = std::move(whole.refused_placements);
      share.finished_placements = std::move(whole.finished_placements);
    }
    share.cluster_id = whole.cluster_id;
    share.epoch = whole.epoch;
    share.version = whole.version;
    share.agent_version = whole.agent_version;
    const size_t first = starts[part];
    const size_t last = part_end(starts, part, nodes);
    for (size_t i = first; i < last; ++i) {
      const auto& node = whole.nodes[i];
      if (const auto revision = whole.node_revisions.find(node->name);
          revision != whole.node_revisions.end()) {
        share.node_revisions.insert(*revision);
      }
      share.nodes.push_back(node);
    }
    out.push_back(AgentSnapshot{
        std::make_shared<const model::ViewSnapshot>(std::move(share)), part, parts, {}});
  }
  return out;
}

template <class Part>
model::Expected<std::optional<typename BasicSnapshotAssembler<Part>::Whole>, std::string>
BasicSnapshotAssembler<Part>::add(Part message) {
  using Traits = SnapshotPartTraits<Part>;
  using Result = model::Expected<std::optional<Whole>, std::string>;
  const PartPosition at = Traits::position(message);
  if (auto problem = Traits::problem(message)) {
    collecting_.reset();
    return Result(std::move(*problem));
  }
  if (at.parts == 0) {
    collecting_.reset();
    if (at.part != 0) {
      return Result(std::string("part: Invalid value: " + std::to_string(at.part) +
                                ": a whole snapshot (parts 0) has no part number"));
    }
    return Result(std::optional<Whole>(Traits::begin(std::move(message))));
  }
  if (at.parts > kMaxSnapshotParts || at.part >= at.parts || at.nodes > kMaxNodesPerSnapshotPart) {
    collecting_.reset();
    return Result(std::string(part_name(at) + " with " + std::to_string(at.nodes) +
                              " nodes: a snapshot has at most " +
                              std::to_string(kMaxSnapshotParts) + " parts of at most " +
                              std::to_string(kMaxNodesPerSnapshotPart) + " nodes each"));
  }
  if (at.part == 0) {
    collecting_ = Traits::begin(std::move(message));
    first_ = at;
    next_part_ = 1;
  } else if (collecting_ && same_snapshot(first_, at) && at.part + 1 == next_part_) {
    return Result(std::optional<Whole>());  // a repeat of the part just taken
  } else if (!collecting_ || !same_snapshot(first_, at) || at.part != next_part_) {
    const std::string expected = collecting_ ? "part " + std::to_string(next_part_) +
                                                   " of the snapshot at version " +
                                                   std::to_string(first_.version)
                                             : std::string("part 0");
    collecting_.reset();
    return Result(std::string(part_name(at) + " at version " + std::to_string(at.version) +
                              ": expected " + expected));
  } else {
    Traits::append(*collecting_, std::move(message));
    ++next_part_;
  }
  if (next_part_ < first_.parts) {
    return Result(std::optional<Whole>());
  }
  Whole whole = std::move(*collecting_);
  collecting_.reset();
  Traits::finish(whole);
  return Result(std::optional<Whole>(std::move(whole)));
}

template <class Part>
v1::SnapshotRequest BasicSnapshotAssembler<Part>::next_request() const {
  v1::SnapshotRequest request;
  if (collecting_) {
    request.mutable_cluster()->set_cluster_id(first_.cluster_id);
    request.set_part(next_part_);
    request.set_epoch(first_.epoch);
    request.set_version(first_.version);
  }
  return request;
}

template <class Part>
Part BasicSnapshotParts<Part>::start(Whole whole) {
  std::vector<Part> parts = SnapshotPartTraits<Part>::split(std::move(whole), PartLimits{});
  // Moved, not copied: part 0 is answered once, and copying a whole view cost about as much
  // as building it (snapshot_serve in the micro-benchmarks).
  Part first = std::move(parts.front());
  const PartPosition at = SnapshotPartTraits<Part>::position(first);
  epoch_ = at.epoch;
  version_ = at.version;
  later_.clear();
  later_.reserve(parts.size() - 1);
  std::move(parts.begin() + 1, parts.end(), std::back_inserter(later_));
  return first;
}

template <class Part>
model::Expected<Part, std::string> BasicSnapshotParts<Part>::part(
    const v1::SnapshotRequest& request) const {
  using Result = model::Expected<Part, std::string>;
  if (request.part() == 0 || request.part() > later_.size() || epoch_ != request.epoch() ||
      version_ != request.version()) {
    return Result(std::string("part " + std::to_string(request.part()) +
                              " of the snapshot at version " + std::to_string(request.version()) +
                              " is no longer kept: pull again from part 0"));
  }
  return Result(later_[request.part() - 1]);
}

template class BasicSnapshotAssembler<v1::ClusterSnapshot>;
template class BasicSnapshotAssembler<AgentSnapshot>;
template class BasicSnapshotParts<v1::ClusterSnapshot>;
template class BasicSnapshotParts<AgentSnapshot>;

}  // namespace unisched::messages
