// What a ClusterActor knows of its cluster's placements beyond its reservations: which run now,
// as the agent last reported, and which ended or were refused lately. It answers the hub's
// question about placements no scheduler follows any more (v1::PlacementQuery). Plain C++.
#pragma once

#include <absl/container/flat_hash_set.h>

#include <string>
#include <utility>
#include <vector>

#include "cores/recent_ids.hpp"

namespace unisched::actors {

class PlacementLedger {
 public:
  enum class State { Unknown, Running, Ended, Refused };

  /// Ends and refusals an agent reported (also in an update that is not applied yet: an end is
  /// final whatever comes before it).
  void note_outcomes(const std::vector<std::string>& finished,
                     const std::vector<std::pair<std::string, std::string>>& refused);
  /// An applied update's placements that now run.
  void note_running(const std::vector<std::string>& applied);
  /// A snapshot lists every placement running at its version.
  void replace_running(const std::vector<std::string>& applied);

  State state(const std::string& placement_id) const;
  /// The placements running, in id order.
  std::vector<std::string> running_in_order() const;

 private:
  /// Enough for the hub, which asks again within seconds of an end it has not heard of yet.
  static constexpr size_t kOutcomesRemembered = 4096;

  // Hashed: every confirmation adds to it, at tens of thousands of ids that share long prefixes
  // ("client-3-..."), which an ordered set spent its time comparing. Listed rarely, sorted then.
  absl::flat_hash_set<std::string> running_;
  RecentIds ended_{kOutcomesRemembered};
  RecentIds refused_{kOutcomesRemembered};
};

}  // namespace unisched::actors
