// The metadata agent's logic without the actor: owns the adapter, keeps the state as of the last
// pushed version, and turns observed changes into numbered, coalesced updates. Plain C++, so the
// protocol can be tested deterministically; actors/agent_actor wraps it.
#pragma once

#include <absl/container/flat_hash_set.h>

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string_view>

#include "adapters/cluster_adapter.hpp"
#include "cores/recent_ids.hpp"
#include "model/delta_coalescer.hpp"
#include "model/node_admission.hpp"
#include "model/view_update.hpp"

namespace unisched::actors {

struct AgentCounters {
  uint64_t observations = 0;   ///< polls of the adapter
  uint64_t changes_seen = 0;   ///< node changes the adapter reported
  uint64_t updates_built = 0;  ///< updates produced (each one version)
  uint64_t deltas_sent = 0;    ///< node changes inside those updates
  uint64_t coalesced = 0;      ///< changes folded into another change of the same node
  uint64_t snapshots = 0;      ///< full snapshots served
  uint64_t relists = 0;        ///< times the adapter read the whole cluster again
  uint64_t placements_applied = 0;
  uint64_t placements_refused = 0;
};

class AgentCore {
 public:
  /// `epoch` identifies this run of the agent; it must differ from any earlier run's (e.g. a
  /// random number or a start time) so the centre can tell a restart from a gap.
  AgentCore(std::shared_ptr<adapters::ClusterAdapter> adapter, uint64_t epoch);

  /// Reads what changed in the cluster since the last observation into the pending set; returns
  /// the nodes newly left out (their records unusable or too large for a message), to warn of
  /// each once: the centre holds none of them.
  model::NodeAdmission::News observe();

  /// The pending changes as the next update, or nullopt when nothing changed since the last one.
  /// At most model::kMaxNodeChangesPerUpdate changes: the rest wait for the next update.
  std::optional<model::ViewUpdate> next_update();
  /// Whether node changes are waiting for an update (more than the last one could carry).
  bool has_pending_changes() const { return !pending_.empty(); }

  enum class PushKind {
    Updates,        ///< the next updates, as next_update() builds them
    WholeSnapshot,  ///< snapshot(): everything observed is already folded into a new version
  };
  /// A push is due: what it sends. The whole state once after the adapter relisted its cluster
  /// (see ClusterAdapter::take_relisted); updates otherwise.
  PushKind on_push_due();

  /// The cluster as of the last update built (the state the centre should hold at that version),
  /// with the placements running and those refused or finished recently.
  model::ViewSnapshot snapshot();

  /// Carries placements out through the adapter. Applied ones are reported with the first
  /// update after the next observation (which holds their node changes); refused ones with the
  /// next update. Pending ones are reported the same way once the adapter says how they ended.
  /// A placement is carried out once: an order for one running, pending, or recently finished
  /// or refused is ignored (orders are resent and may arrive twice).
  void carry_out(const std::vector<model::Reservation>& placements);

  /// Ends placements (released by the centre); their resources free up in a later update, which
  /// also reports them finished, as it does placements never carried out here (the release
  /// then confirms that none will be).
  void finish(const std::vector<std::string>& placement_ids);

  /// Ends every placement of these requests (given up at the centre): those carried out here
  /// and those the adapter shows from an earlier run of the agent. Orders for their placements
  /// are refused from now on (one may still be on its way).
  void release_requests(const std::vector<std::string>& request_ids);

  adapters::ClusterAdapter& adapter() { return *adapter_; }
  /// Nodes the adapter reported that the agent does not send.
  size_t nodes_left_out() const { return admission_.size(); }
  /// Placements the cluster has not decided yet.
  size_t pending_placements() const { return pending_placements_.size(); }
  const std::string& cluster_id() const { return cluster_id_; }
  uint64_t epoch() const { return epoch_; }
  uint64_t version() const { return version_; }
  const AgentCounters& counters() const { return counters_; }

 private:
  /// Why a node is too large to send (messages::kMaxNodeWireBytes), or an empty string.
  static std::string unsendable_node(const model::NodeState& node);
  void refuse(const std::string& id, const std::string& reason);
  void remember_finished(const std::string& id);
  bool carried_out_before(const std::string& id) const;

  /// Refusals and finished placements kept to answer repeated orders and to tell again in
  /// snapshots.
  static constexpr size_t kOutcomesRemembered = 1024;

  std::shared_ptr<adapters::ClusterAdapter> adapter_;
  std::string cluster_id_;
  uint64_t epoch_;
  uint64_t version_ = 0;
  bool listed_ = false;
  bool start_over_ = false;  // the adapter relisted since the last push
  /// Shared node states found by their own name: the set holds no copy of a name.
  struct StateName {
    using is_transparent = void;
    size_t operator()(std::string_view name) const { return absl::Hash<std::string_view>{}(name); }
    size_t operator()(const std::shared_ptr<const model::NodeState>& state) const {
      return (*this)(state->name);
    }
  };
  struct SameStateName {
    using is_transparent = void;
    static std::string_view name_of(std::string_view name) { return name; }
    static std::string_view name_of(const std::shared_ptr<const model::NodeState>& state) {
      return state->name;
    }
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      return name_of(a) == name_of(b);
    }
  };
  /// The nodes as of version_: the very states its updates carried, so that in one process the
  /// centre's views hold these and no copy of their own.
  model::NodeAdmission admission_{unsendable_node};
  absl::flat_hash_set<std::shared_ptr<const model::NodeState>, StateName, SameStateName> published_;
  model::DeltaCoalescer pending_;
  model::ClusterResources published_resources_;
  std::vector<std::string> applied_unobserved_;  // carried out, node change not observed yet
  std::vector<std::string> applied_to_report_;
  std::vector<std::pair<std::string, std::string>> refused_to_report_;
  std::vector<std::string> finished_to_report_;
  std::set<std::string> running_;             // placements carried out and not finished
  std::set<std::string> pending_placements_;  // the cluster has not decided yet
  std::deque<std::pair<std::string, std::string>> recently_refused_;
  std::set<std::string> refused_recently_;  // the ids of recently_refused_
  RecentIds finished_recently_{kOutcomesRemembered};
  RecentIds given_up_{kOutcomesRemembered};  // requests whose placements are refused
  AgentCounters counters_;
};

}  // namespace unisched::actors
