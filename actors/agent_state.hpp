// The metadata agent's logic without the actor: owns the adapter, keeps the state as of the last
// pushed version, and turns observed changes into numbered, coalesced updates. Plain C++, so the
// protocol can be tested deterministically; actors/agent_actor wraps it.
#pragma once

#include <map>
#include <memory>
#include <optional>

#include "adapters/cluster_adapter.hpp"
#include "model/delta_coalescer.hpp"
#include "model/view_update.hpp"

namespace unisched::actors {

struct AgentCounters {
  uint64_t observations = 0;   ///< polls of the adapter
  uint64_t changes_seen = 0;   ///< node changes the adapter reported
  uint64_t updates_built = 0;  ///< updates produced (each one version)
  uint64_t deltas_sent = 0;    ///< node changes inside those updates
  uint64_t coalesced = 0;      ///< changes folded into another change of the same node
  uint64_t snapshots = 0;      ///< full snapshots served
};

class AgentState {
 public:
  /// `epoch` identifies this run of the agent; it must differ from any earlier run's (e.g. a
  /// random number or a start time) so the centre can tell a restart from a gap.
  AgentState(std::shared_ptr<adapters::ClusterAdapter> adapter, uint64_t epoch);

  /// Reads what changed in the cluster since the last observation into the pending set.
  void observe();

  /// The pending changes as the next update, or nullopt when nothing changed since the last one.
  std::optional<model::ViewUpdate> next_update();

  /// The cluster as of the last update built (the state the centre should hold at that version).
  model::ViewSnapshot snapshot();

  adapters::ClusterAdapter& adapter() { return *adapter_; }
  const std::string& cluster_id() const { return cluster_id_; }
  uint64_t epoch() const { return epoch_; }
  uint64_t version() const { return version_; }
  const AgentCounters& counters() const { return counters_; }

 private:
  std::shared_ptr<adapters::ClusterAdapter> adapter_;
  std::string cluster_id_;
  uint64_t epoch_;
  uint64_t version_ = 0;
  bool listed_ = false;
  std::map<std::string, model::NodeState> published_;  // as of version_
  model::DeltaCoalescer pending_;
  model::ClusterResources published_resources_;
  AgentCounters counters_;
};

}  // namespace unisched::actors
