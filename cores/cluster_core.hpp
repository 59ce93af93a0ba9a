// A ClusterActor's logic without the actor: the versioned view of one cluster, the version rule
// for every update, reservations with compare-and-set commits, and counters. Plain C++, so the
// protocol can be tested deterministically; actors/cluster_actor wraps it. Its collaborators,
// each tested alone: the view as published to schedulers (PublishedView), the resync and the
// updates held back for it (ViewResync), the reservations on top of the agent's truth
// (ReservationHoldings), what the agent reported of each placement (PlacementLedger), and what
// is sent again until confirmed (ClusterDeliveries).
//
// Two numbers order things. The *position* (epoch, version) is where the view stands in its
// agent's stream. The *revision* counts every change of the view schedulers see: the agent's
// truth plus reservations not yet confirmed. Commits compare-and-set on revisions: the cluster's
// (the seed's rule) or, finer, those of only the nodes a commit touches.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cores/cluster_deliveries.hpp"
#include "cores/commit.hpp"
#include "cores/placement_ledger.hpp"
#include "cores/published_view.hpp"
#include "cores/recent_ids.hpp"
#include "cores/reservation_holdings.hpp"
#include "cores/view_resync.hpp"
#include "model/cluster_view.hpp"
#include "model/node_admission.hpp"
#include "model/reservation.hpp"
#include "model/version_gate.hpp"
#include "model/view_revision.hpp"
#include "model/view_update.hpp"

namespace unisched::actors {

enum class AckStatus {
  Applied,    ///< the update is in the view
  Duplicate,  ///< already had it; ignored
  Gap,        ///< something before it is missing; a full snapshot is being pulled
  Rejected,   ///< malformed or inconsistent; the view is unchanged
};

const char* describe(AckStatus status);

/// What the actor carries out after an event, as the core decided it: each event of the core
/// returns these, and nothing is left to be asked for later.
struct ClusterEffects {
  /// Pull the agent's whole state now. The core counts the pull in flight until on_snapshot()
  /// or on_resync_failed() says how it went: one pull at a time.
  bool pull_snapshot = false;
  /// A pull failed or its snapshot was refused: resume_resync() after the backoff.
  bool pull_after_backoff = false;
  /// Placements the cluster refused, or lost with their node, with reasons: for whoever
  /// committed them, to place again.
  std::vector<std::pair<std::string, std::string>> refused;
  /// Nodes the view newly leaves out (their records unusable): to warn of, each once.
  model::NodeAdmission::News left_out;
};

struct UpdateOutcome {
  UpdateOutcome() = default;
  UpdateOutcome(AckStatus status, uint64_t version, std::string error, ClusterEffects effects = {})
      : status(status), version(version), error(std::move(error)), effects(std::move(effects)) {}

  AckStatus status = AckStatus::Applied;
  uint64_t version = 0;  ///< the version the view holds afterwards
  std::string error;     ///< why it was rejected
  ClusterEffects effects;
};

struct SnapshotOutcome {
  /// Why the snapshot could not be applied (the resync is then needed again); none when it was
  /// applied or was already passed by updates.
  std::optional<std::string> problem;
  ClusterEffects effects;
};

enum class CommitStatus {
  Accepted,  ///< reserved; the agent is told to carry it out
  Conflict,  ///< the view changed since the decision: refresh and decide again
  Refused,   ///< cannot be taken at all (unhealthy cluster, unknown node, does not fit)
};

struct CommitOutcome {
  CommitStatus status = CommitStatus::Accepted;
  std::string reason;
  uint64_t revision = 0;  ///< the view's revision afterwards
};

struct ClusterCounters {
  uint64_t updates_applied = 0;
  uint64_t deltas_applied = 0;
  uint64_t duplicates = 0;
  uint64_t gaps = 0;      ///< detected gaps (each starts a resync)
  uint64_t resyncs = 0;   ///< full snapshots applied
  uint64_t rejected = 0;  ///< updates refused as malformed or inconsistent
  uint64_t health_transitions = 0;
  uint64_t commits = 0;    ///< commits accepted
  uint64_t conflicts = 0;  ///< commits refused by compare-and-set
  uint64_t placements_confirmed = 0;
  uint64_t placements_refused = 0;  ///< by the cluster, after a commit
};

class ClusterCore {
 public:
  explicit ClusterCore(std::string cluster_id) : published_(std::move(cluster_id)) {}

  UpdateOutcome on_update(model::ViewUpdate update);

  /// Counts an update refused before it could be applied (unreadable, or from a sender that
  /// does not speak for the cluster).
  UpdateOutcome reject_update(std::string reason);

  /// Asks for a full resync (a returning agent, a restarted actor, a new agent bound).
  ClusterEffects request_resync();

  /// An agent bound, or the backoff after a failed pull passed: pulls if a resync is needed.
  ClusterEffects resume_resync();

  /// Applies a pulled or pushed snapshot if it is current and valid, then replays held-back
  /// updates. Taken by value: the view takes the nodes over, so a caller done with the
  /// snapshot moves it in.
  SnapshotOutcome on_snapshot(model::ViewSnapshot snapshot);

  /// The pull failed (no answer); the resync is needed again, after the backoff.
  ClusterEffects on_resync_failed();

  /// An agent reported its position (e.g. answering a probe). A version the view lacks that is
  /// still lacking at the next report means the last updates were lost: resync.
  ClusterEffects on_agent_position(uint64_t epoch, uint64_t version);

  /// Returns true when the health changed.
  bool set_healthy(bool healthy);

  /// Reserves a commit's placements if the revisions it was decided on still hold (and keeps
  /// its reservations: pass it moved when done with it).
  CommitOutcome commit(Commit commit, CommitMode mode);

  /// Drops reservations (a gang that could not be committed everywhere).
  void release(const std::vector<std::string>& reservation_ids);

  /// Gives these requests up, each named by its attempt's key (model/request_attempt.hpp): the
  /// hub decides the request again under a new attempt, or it ended. Drops their reservations as
  /// release() does, refuses their commits from now on, releases any placement of theirs the agent
  /// reports running, and has the agent release every placement of theirs (on_resend_period() sends
  /// that again for kReleaseResends healthy periods: the agent does not confirm it).
  void give_up(const std::vector<std::string>& request_ids);
  bool given_up(const std::string& request_id) const { return deliveries_.given_up(request_id); }

  /// A resend period passed: what to send the agent again (see ClusterDeliveries).
  using Resend = ClusterDeliveries::Resend;
  Resend on_resend_period() { return deliveries_.on_period(holdings_.in_id_order(), healthy_); }
  static constexpr int kReleaseResends = ClusterDeliveries::kReleaseResends;

  enum class PlacementState { Unknown, Pending, Running, Ended, Refused };
  /// What became of a placement here: reserved and not carried out yet, running, ended or
  /// refused lately (as the agent reported), or unknown.
  PlacementState placement_state(const std::string& placement_id) const;
  /// Every placement reserved or running here.
  std::vector<std::string> held_placements() const;
  /// Whether the view holds what the agent reported (not started, not resyncing): only then
  /// does an unknown placement mean this cluster never got its order.
  bool synced() const { return position().version > 0 && resync_.idle(); }

  /// The view as subscribers get it: whole, copied out, or the changes since a revision.
  const PublishedView& published() const { return published_; }

  const std::string& cluster_id() const { return published_.cluster_id(); }
  const model::ClusterView& view() const { return published_.nodes(); }
  model::StreamPosition position() const { return published_.position(); }
  uint64_t revision() const { return published_.revision(); }
  size_t reservations() const { return holdings_.size(); }
  const ClusterCounters& counters() const { return counters_; }
  bool healthy() const { return healthy_; }
  /// Nodes the view leaves out (their records unusable).
  size_t nodes_left_out() const { return admission_.size(); }
  bool resyncing() const { return !resync_.idle(); }
  /// Whether the view is where the agent says it stands (as its probe answer says).
  bool in_step_with(const model::StreamPosition& agent) const {
    return position().epoch == agent.epoch && position().version == agent.version;
  }
  /// Whether a resync asked for now has nothing to do: the view is where the agent stands and
  /// none is under way.
  bool resync_needless(const model::StreamPosition& agent) const {
    return in_step_with(agent) && !resyncing();
  }

 private:
  enum class PullNow { IfNeeded, AfterBackoff };

  /// What the event just handled leaves for the actor: refusals and news gathered, and a pull
  /// when a resync is needed (now, or after the backoff).
  ClusterEffects effects(PullNow pull);
  UpdateOutcome take_update(model::ViewUpdate& update);
  std::optional<std::string> take_snapshot(model::ViewSnapshot& snapshot);
  /// Takes the update's node changes over.
  UpdateOutcome apply(model::ViewUpdate& update);
  /// Applies the held-back updates that now follow in order.
  void replay_held_back();

  PublishedView published_;       // truth plus reservations
  ReservationHoldings holdings_;  // truth plus these is the published view
  PlacementLedger placements_;
  ClusterDeliveries deliveries_;  // orders and releases until confirmed, given-up requests
  std::vector<std::pair<std::string, std::string>> refused_;
  ClusterCounters counters_;
  model::NodeAdmission admission_;
  bool healthy_ = false;  // healthy only once the supervisor says so
  ViewResync resync_;
};

}  // namespace unisched::actors
