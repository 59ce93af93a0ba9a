// ClusterCore's answers to a network that loses, repeats and reorders (cores/cluster_core.hpp):
// orders and releases the agent has not confirmed are sent again, a commit that arrives twice is
// accepted once, what a given-up request placed is released wherever it shows up, and what
// became of a placement is told to the hub that lost track of it.
#include <algorithm>

#include "cores/cluster_core.hpp"
#include "model/reservation.hpp"

namespace unisched::actors {

ClusterCore::PlacementState ClusterCore::placement_state(const std::string& placement_id) const {
  if (holdings_.contains(placement_id)) {
    return PlacementState::Pending;
  }
  switch (placements_.state(placement_id)) {
    case PlacementLedger::State::Running:
      return PlacementState::Running;
    case PlacementLedger::State::Ended:
      return PlacementState::Ended;
    case PlacementLedger::State::Refused:
      return PlacementState::Refused;
    case PlacementLedger::State::Unknown:
      break;
  }
  return PlacementState::Unknown;
}

std::vector<std::string> ClusterCore::held_placements() const {
  std::vector<std::string> held = placements_.running_in_order();
  for (const model::Reservation* reservation : holdings_.in_id_order()) {
    held.push_back(reservation->id);
  }
  return held;
}

void ClusterCore::confirm_ended(const std::vector<std::string>& finished,
                                const std::vector<std::pair<std::string, std::string>>& refused) {
  for (const std::string& id : finished) {
    releasing_.erase(id);
  }
  for (const auto& [id, reason] : refused) {
    releasing_.erase(id);
  }
}

bool ClusterCore::committed_before(const Commit& commit) const {
  return !commit.reservations.empty() &&
         std::all_of(commit.reservations.begin(), commit.reservations.end(),
                     [&](const model::Reservation& r) { return committed_.contains(r.id); });
}

void ClusterCore::note_committed(const Commit& commit) {
  for (const model::Reservation& reservation : commit.reservations) {
    committed_.insert(reservation.id);
  }
}

void ClusterCore::give_up(const std::vector<std::string>& request_ids) {
  // Matched against these requests, not the remembered ones (there may be more of them).
  const std::set<std::string> requests(request_ids.begin(), request_ids.end());
  std::vector<std::string> held;
  for (const std::string& request : requests) {
    given_up_.insert(request);
    releasing_requests_.emplace(request, 0);
  }
  for (const model::Reservation* reservation : holdings_.in_id_order()) {
    if (requests.count(model::request_of_placement(reservation->id)) > 0) {
      held.push_back(reservation->id);
    }
  }
  release(held);
}

ClusterCore::Resend ClusterCore::on_resend_period() {
  Resend resend;
  std::map<std::string, int> ages;
  for (const model::Reservation* reservation : holdings_.in_id_order()) {
    const auto known = order_ages_.find(reservation->id);
    const int age = (known == order_ages_.end() ? 0 : known->second) + 1;
    ages.emplace_hint(ages.end(), reservation->id, age);
    if (age >= 2) {  // a whole period without the agent's word
      resend.orders.push_back(*reservation);
    }
  }
  order_ages_.swap(ages);
  for (auto it = releasing_.begin(); it != releasing_.end();) {
    if (++it->second > kReleaseResends) {
      it = releasing_.erase(it);
      continue;
    }
    if (it->second >= 2) {
      resend.releases.push_back(it->first);
    }
    ++it;
  }
  // Unconfirmed, so sent every period; only healthy periods count, in which the agent answers.
  for (auto it = releasing_requests_.begin(); it != releasing_requests_.end();) {
    if (healthy_ && ++it->second > kReleaseResends) {
      it = releasing_requests_.erase(it);
      continue;
    }
    resend.released_requests.push_back(it->first);
    ++it;
  }
  return resend;
}

}  // namespace unisched::actors
