// A commit: placements reserved at one cluster by compare-and-set on the revisions a decision
// saw, and a release of placements there. The scheduler's core builds them, the ClusterActor's
// core takes them; the actors carry them across as v1::CommitRequest and v1::ReleaseOrder
// (actors/commit_wire).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/reservation.hpp"

namespace unisched::actors {

enum class CommitMode {
  ClusterRevision,  ///< the whole cluster must be at the revision decided on
  NodeRevisions,    ///< only the nodes the commit touches must be unchanged
};

struct Commit {
  std::string request_id;
  uint64_t revision = 0;                           ///< ClusterRevision mode
  std::map<std::string, uint64_t> node_revisions;  ///< NodeRevisions mode: every touched node
  std::vector<model::Reservation> reservations;
};

/// One cluster's part of a decision.
struct ClusterCommit {
  std::string cluster_id;
  CommitMode mode = CommitMode::ClusterRevision;
  Commit commit;
};

/// Placements a scheduler drops at one cluster: a gang not placed whole, a commit without an
/// answer (it may have reserved), replicas whose ClusterActor went away unconfirmed.
struct ClusterRelease {
  std::string cluster_id;
  std::vector<std::string> placement_ids;
};

}  // namespace unisched::actors
