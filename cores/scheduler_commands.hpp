// What a scheduler's core asks its actor to send: the messages of each commit round, releases,
// quota takes and releases, and the decisions to answer with. Every call into the core
// (SchedulerCore and its collaborators) returns these; the actor carries them out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cores/commit.hpp"
#include "cores/quota_amounts.hpp"
#include "cores/request_decision.hpp"
#include "policy/pipeline.hpp"

namespace unisched::actors {

/// The decision's record of one placement (as its scheduler and a direct replay report it).
RequestDecision::Replica replica_of(const std::string& placement_id,
                                    const policy::ReplicaPlacement& placement);

/// What one decision's commit round sends.
struct RoundMessages {
  uint64_t round = 0;
  /// Send each to its cluster (cluster_id); report the answer with on_commit_result(round,
  /// cluster, ...), or TimedOut when none came in time.
  std::vector<ClusterCommit> commits;
  /// Send to the quota ledger; report the answer with on_quota_result(round, ...), or TimedOut
  /// when none came in time.
  std::optional<QuotaTake> quota_take;
  /// Fetch these clusters' views (views().replace), then call on_refreshed(round).
  std::vector<std::string> refresh;
};

/// What the actor sends after a call.
struct SchedulerCommands {
  /// The rounds that started or moved on, in order.
  std::vector<RoundMessages> rounds;
  /// Send to the quota ledger before any release: takes made from leases (their commits are
  /// out already).
  std::vector<QuotaLeaseUse> quota_lease_uses;
  /// Send to the quota ledger: holdings to give back, work no longer waiting (its hold too).
  std::vector<std::string> quota_releases;
  std::vector<std::string> quota_withdrawals;
  /// Send each to its cluster.
  std::vector<ClusterRelease> releases;
  /// Answers to submissions: the ticket given to submit(), and its decision.
  std::vector<std::pair<uint64_t, RequestDecision>> replies;
  /// A decision that changed after it was answered (a refused replica placed again): tell the
  /// request's submitter.
  std::vector<RequestDecision> updates;
  /// Requests no longer tracked: their submitters need not be remembered.
  std::vector<std::string> forgotten;
  /// A decision ended and requests wait: call advance() once the messages already waiting have
  /// been handled, so the next decision sees the view changes that arrived meanwhile.
  bool advance_later = false;

  void append(SchedulerCommands&& later);
  /// The messages of round `id`, added if this holds none yet.
  RoundMessages& round(uint64_t id);
};

/// Why a cluster (or the ledger, as "quota") did not take a decision's placements.
RequestDecision::Diagnosis diagnosis(std::string cluster, std::string plugin, std::string reason);

/// Drops these replicas' reservations at their cluster.
ClusterRelease release_of(const std::string& cluster,
                          const std::vector<RequestDecision::Replica>& replicas);

}  // namespace unisched::actors
