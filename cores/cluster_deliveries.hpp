// What a ClusterActor sent its agent that the agent has not confirmed: orders of reservations
// and releases, sent again each resend period until confirmed (or, for a release, given up);
// the commits accepted lately, so a repeated commit is answered as the first was; and the
// requests given up, whose commits are refused and whose placements are released wherever they
// show up. Orders and releases may be lost on the way; the agent ignores repeats.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cores/commit.hpp"
#include "cores/recent_ids.hpp"
#include "model/reservation.hpp"

namespace unisched::actors {

class ClusterDeliveries {
 public:
  static constexpr size_t kRemembered = 4096;
  /// A release is sent at most this many periods (its placement then never ran there), and a
  /// given-up request's release for this many healthy periods.
  static constexpr int kReleaseResends = 20;

  /// What to send the agent again.
  struct Resend {
    std::vector<model::Reservation> orders;
    std::vector<std::string> releases;
    std::vector<std::string> released_requests;  ///< given up: every placement of theirs
  };

  /// A resend period passed with `held` the reservations not yet confirmed, in id order (each
  /// is sent again after a whole period without the agent's word), the cluster `healthy` or
  /// not (only healthy periods count for a given-up request's release: the agent answers then).
  Resend on_period(const std::vector<const model::Reservation*>& held, bool healthy);

  /// Whether every placement of `commit` was accepted here lately (a repeated commit).
  bool committed_before(const Commit& commit) const;
  void note_committed(const Commit& commit);

  /// The placement is released: sent again from its `age`-th period until the agent confirms.
  void releasing(const std::string& placement_id, int age) {
    releasing_.emplace(placement_id, age);
  }
  /// The agent reported these placements ended or refused: their releases are confirmed.
  void confirm_ended(const std::vector<std::string>& finished,
                     const std::vector<std::pair<std::string, std::string>>& refused);

  /// The agent carried these placements out: one of a given-up request (its order overtook the
  /// give-up) is released from the next period on.
  void note_running(const std::vector<std::string>& applied);

  /// The request is given up here: its commits are refused, and the agent is told to release
  /// every placement of it.
  void give_up(const std::string& request_id);
  bool given_up(const std::string& request_id) const { return given_up_.contains(request_id); }

 private:
  std::map<std::string, int> order_ages_;          // reservation id -> periods unconfirmed
  std::map<std::string, int> releasing_;           // released placement -> periods unconfirmed
  std::map<std::string, int> releasing_requests_;  // given-up request -> healthy periods sent
  RecentIds committed_{kRemembered};               // placements accepted lately
  RecentIds given_up_{kRemembered};                // requests whose commits are refused
};

}  // namespace unisched::actors
