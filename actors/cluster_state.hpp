// A ClusterActor's logic without the actor: the versioned view of one cluster, the version rule
// for every update, resync bookkeeping and counters. Plain C++, so the protocol can be tested
// deterministically; actors/cluster_actor wraps it.
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "model/cluster_view.hpp"
#include "model/version_gate.hpp"
#include "model/view_update.hpp"

namespace unisched::actors {

enum class AckStatus {
  Applied,    ///< the update is in the view
  Duplicate,  ///< already had it; ignored
  Gap,        ///< something before it is missing; a full snapshot is being pulled
  Rejected,   ///< malformed or inconsistent; the view is unchanged
};

const char* describe(AckStatus status);

struct UpdateOutcome {
  AckStatus status = AckStatus::Applied;
  uint64_t version = 0;  ///< the version the view holds afterwards
  std::string error;     ///< why it was rejected
};

struct ClusterCounters {
  uint64_t updates_applied = 0;
  uint64_t deltas_applied = 0;
  uint64_t duplicates = 0;
  uint64_t gaps = 0;      ///< detected gaps (each starts a resync)
  uint64_t resyncs = 0;   ///< full snapshots applied
  uint64_t rejected = 0;  ///< updates refused as malformed or inconsistent
  uint64_t health_transitions = 0;
};

class ClusterState {
 public:
  /// How many applied updates are kept for subscribers that ask for changes since a version.
  static constexpr size_t kChangeLogLength = 256;
  /// How many updates are held back while a snapshot is being pulled.
  static constexpr size_t kStashLength = 4096;

  explicit ClusterState(std::string cluster_id) : cluster_id_(std::move(cluster_id)) {}

  UpdateOutcome on_update(const model::ViewUpdate& update);

  /// Counts an update refused before it could be read (e.g. an unknown enum value).
  UpdateOutcome reject_undecodable(std::string reason);

  /// True exactly once for each resync that is needed and not yet started: the caller then
  /// pulls a snapshot and reports it with on_snapshot() or on_resync_failed().
  bool take_resync_request();

  /// Asks for a full resync (a returning agent, a restarted actor).
  void request_resync();

  /// Applies a pulled snapshot if it is current and valid, then replays held-back updates.
  /// Returns the reason when it cannot be applied (the resync is then needed again).
  std::optional<std::string> on_snapshot(const model::ViewSnapshot& snapshot);

  /// The pull failed (no answer); the resync is needed again.
  void on_resync_failed();

  /// An agent reported its position (e.g. answering a probe). A version the view lacks that is
  /// still lacking at the next report means the last updates were lost: resync.
  void on_agent_position(uint64_t epoch, uint64_t version);

  /// Returns true when the health changed.
  bool set_healthy(bool healthy);

  /// Updates applied after `version` of `epoch`, oldest first; nullopt when they are no longer
  /// kept (the subscriber needs the whole view then).
  std::optional<std::vector<model::ViewUpdate>> changes_since(uint64_t epoch,
                                                              uint64_t version) const;

  model::ViewSnapshot snapshot() const;

  const std::string& cluster_id() const { return cluster_id_; }
  const model::ClusterView& view() const { return view_; }
  model::StreamPosition position() const { return position_; }
  const ClusterCounters& counters() const { return counters_; }
  bool healthy() const { return healthy_; }
  bool resyncing() const { return resync_ != Resync::Idle; }

 private:
  enum class Resync { Idle, Needed, InFlight };

  UpdateOutcome apply(const model::ViewUpdate& update);
  void start_resync();
  void replay_stash();

  std::string cluster_id_;
  model::ClusterView view_;
  model::StreamPosition position_;
  ClusterCounters counters_;
  bool healthy_ = false;  // healthy only once the supervisor says so
  Resync resync_ = Resync::Idle;
  std::deque<model::ViewUpdate> stash_;
  std::deque<model::ViewUpdate> log_;
  std::optional<model::StreamPosition> lagging_;  // a position an agent reported ahead of us
};

}  // namespace unisched::actors
