// A sequence of agent updates, snapshots, commits, releases and probes into ClusterCore, the
// ClusterActor's logic (snapshots through the collector of their parts). The input is a list of
// operations, each an operation byte, a 16-bit length and that many bytes of protobuf (see
// README.md). After every operation: the view's totals equal the sum of its nodes, the revision
// never goes back, the view schedulers get decodes, and an accepted commit leaves every node it
// touched within its capacity.
#include <map>
#include <set>

#include "cores/cluster_core.hpp"
#include "messages/convert.hpp"
#include "messages/snapshot_parts.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

namespace messages = unisched::messages;
namespace model = unisched::model;
namespace v1 = unisched::v1;
using unisched::actors::ClusterCore;
using unisched::fuzz::check;

constexpr const char* kCluster = "fuzz";

/// Reads operations off the input: [op][length lo][length hi][length bytes].
class Operations {
 public:
  Operations(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool next(uint8_t& op, std::string& payload) {
    if (at_ + 3 > size_)
      return false;
    op = data_[at_];
    const size_t length = std::min<size_t>(data_[at_ + 1] | (data_[at_ + 2] << 8), size_ - at_ - 3);
    payload.assign(reinterpret_cast<const char*>(data_ + at_ + 3), length);
    at_ += 3 + length;
    return true;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t at_ = 0;
};

void apply_update(ClusterCore& state, const std::string& payload) {
  v1::IncrementalUpdate wire;
  if (!wire.ParseFromString(payload))
    return;
  auto update = messages::from_proto(wire);
  if (!update) {
    state.reject_update(update.error());
    return;
  }
  model::ViewUpdate taken = *update;
  taken.cluster_id = kCluster;  // the actor refuses other clusters' updates before this point
  state.on_update(std::move(taken));
}

/// A snapshot, or one part of one, collected as the ClusterActor collects them.
void apply_snapshot(ClusterCore& state, messages::AgentSnapshotAssembler& parts,
                    const std::string& payload) {
  v1::ClusterSnapshot part;
  if (!part.ParseFromString(payload))
    return;
  // As a ClusterActor receives it from a link: read into shared states, collected, taken.
  const auto taken = parts.add(messages::read_snapshot(part));
  if (!taken || !taken.value())
    return;
  model::ViewSnapshot snapshot = std::move(*taken.value());
  snapshot.cluster_id = kCluster;
  state.resume_resync();
  state.on_snapshot(snapshot);  // one that cannot be applied leaves the resync needed
}

void apply_commit(ClusterCore& state, const std::string& payload) {
  v1::CommitRequest wire;
  if (!wire.ParseFromString(payload))
    return;
  unisched::actors::Commit commit;
  commit.request_id = wire.request_id();
  commit.revision = wire.revision();
  commit.node_revisions.insert(wire.node_revisions().begin(), wire.node_revisions().end());
  std::set<std::string> touched;
  for (const auto& placement : wire.placements()) {
    commit.reservations.push_back(messages::from_proto(placement));
    touched.insert(placement.node());
  }
  const auto mode = wire.node_level() ? unisched::actors::CommitMode::NodeRevisions
                                      : unisched::actors::CommitMode::ClusterRevision;
  const auto outcome = state.commit(commit, mode);
  if (outcome.status != unisched::actors::CommitStatus::Accepted)
    return;
  for (const std::string& name : touched) {
    const model::NodeState* node = state.view().find(name);
    check(node != nullptr, "an accepted commit names nodes of the view", name);
    const auto problem = model::check_node(*node);
    check(!problem, "an accepted commit leaves its nodes within capacity",
          problem ? problem->to_string() : "");
  }
}

void apply_other(ClusterCore& state, uint8_t op, const std::string& payload) {
  if (op == 3) {
    v1::ReleaseOrder wire;
    if (wire.ParseFromString(payload))
      state.release({wire.placement_ids().begin(), wire.placement_ids().end()});
  } else if (op == 4) {
    state.set_healthy(!payload.empty() && (payload[0] & 1));
  } else if (op == 5) {
    v1::HealthStatus wire;
    if (wire.ParseFromString(payload))
      state.on_agent_position(wire.epoch(), wire.version());
  } else if (op == 6) {
    state.on_resend_period();
    state.resume_resync();
  } else if (op == 7) {
    state.request_resync();
  }
}

void check_view(const ClusterCore& state, uint64_t& last_revision) {
  check(state.revision() >= last_revision, "the revision never goes back");
  last_revision = state.revision();
  model::ClusterTotals sum;
  for (const model::NodeState* node : state.view().sorted_nodes()) {
    ++sum.nodes;
    sum.schedulable_nodes += node->schedulable ? 1 : 0;
    sum.allocatable_cpu_milli += node->allocatable_cpu_milli;
    sum.allocated_cpu_milli += node->allocated_cpu_milli;
    sum.allocatable_memory_bytes += node->allocatable_memory_bytes;
    sum.allocated_memory_bytes += node->allocated_memory_bytes;
    sum.pods += node->pod_count;
  }
  check(sum == state.view().totals(), "the view's totals are the sum of its nodes");
  const auto decoded = messages::from_proto(messages::to_proto(state.published().snapshot()));
  check(decoded.has_value(), "the view schedulers get decodes", decoded ? "" : decoded.error());
  const auto changes = state.published().changes_since(last_revision > 3 ? last_revision - 3 : 0);
  if (changes) {
    for (const auto& change : *changes) {
      check(change->revision <= last_revision, "changes end at the current revision");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ClusterCore state(kCluster);
  messages::AgentSnapshotAssembler parts;
  Operations operations(data, size);
  uint8_t op = 0;
  std::string payload;
  uint64_t last_revision = 0;
  for (int count = 0; count < 64 && operations.next(op, payload); ++count) {
    op %= 8;
    if (op == 0) {
      apply_update(state, payload);
    } else if (op == 1) {
      apply_snapshot(state, parts, payload);
    } else if (op == 2) {
      apply_commit(state, payload);
    } else {
      apply_other(state, op, payload);
    }
    check_view(state, last_revision);
  }
  return 0;
}
