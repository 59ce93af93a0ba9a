// Decided requests that no scheduler follows any more: their scheduler stopped after deciding
// them, or the hub restarted and recovered them from its journal. A scheduler places again what
// a cluster refused or a restarted ClusterActor forgot; without one, nobody would. So the hub
// asks each cluster what became of these requests' placements until every one runs or ended.
// One the cluster refused, or does not know kUnknownLimit times in a row while its view is in
// step with its agent, will never run: its order was lost with a ClusterActor that stopped. The
// request is then decided again under a new attempt (and what it placed released). Plain C++;
// the hub drives it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "messages/unisched.pb.h"

namespace unisched::runtime {

class RequestBook;

class Reconciliation {
 public:
  /// Unknown this many times in a row (one question per period): the order never arrived. More
  /// than once, because an update saying it runs may still be on its way.
  static constexpr int kUnknownLimit = 3;

  /// `scheduler` decided (or changed) this request; a request it leaves PLACED or PARTIALLY_PLACED
  /// is followed once that scheduler stops.
  void decided(const v1::RequestStatus& status, uint64_t scheduler);
  /// The scheduler stopped: returns the requests it had decided that have not ended.
  std::vector<std::string> scheduler_stopped(uint64_t scheduler);
  /// Follows the placements of `status` (PLACED or PARTIALLY_PLACED) that have not ended.
  void follow(const v1::RequestStatus& status);
  /// The request ended (finished, given up) or was decided again: nothing to follow.
  void forget(const std::string& request_id);

  bool idle() const { return placements_.empty(); }
  size_t followed_requests() const { return requests_.size(); }

  /// The placements to ask each cluster about, by cluster.
  std::map<std::string, std::vector<std::string>> questions() const;

  struct GiveUp {
    std::string request_id;
    std::string reason;
  };
  struct Outcome {
    std::vector<GiveUp> give_up;  ///< no longer followed
    /// Placements the cluster says ended: the hub records them as it records FinishedPlacements
    /// (the report of their end may have been lost with a centre that stopped).
    std::vector<std::string> ended;
  };
  /// The cluster's answer about `asked` (as questions() listed them).
  Outcome on_report(const std::string& cluster, const std::vector<std::string>& asked,
                    const v1::PlacementReport& report);

 private:
  struct Followed {
    std::string request_id;
    std::string cluster;
    int unknown = 0;  // answers in a row that the cluster does not know it
  };
  void drop_placement(const std::string& placement_id);

  std::map<std::string, Followed> placements_;             // placement id -> whose, where
  std::map<std::string, std::set<std::string>> requests_;  // request -> its followed placements
  std::map<std::string, uint64_t> deciders_;               // request -> scheduler
};

/// The placements `cluster` holds (reserved or running) that no decision holds there: their
/// request ended (finished, unschedulable, lost), was decided without them (a release lost
/// with a scheduler or a centre that stopped), or is decided again under a later attempt.
/// Placements of the current attempt of requests that a scheduler is deciding (`deciding`) or
/// that wait, and of requests the book does not know, are left alone.
std::vector<std::string> find_strays(const std::string& cluster,
                                     const std::vector<std::string>& held, const RequestBook& book,
                                     const std::function<bool(const std::string&)>& deciding);

}  // namespace unisched::runtime
