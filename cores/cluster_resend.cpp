// ClusterCore's answers to a network that loses, repeats and reorders (cores/cluster_core.hpp):
// what a given-up request placed is released wherever it shows up, and what became of a
// placement is told to the hub that lost track of it. What the agent has not confirmed is kept
// by ClusterDeliveries.
#include <algorithm>

#include "cores/cluster_core.hpp"
#include "model/request_attempt.hpp"
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

void ClusterCore::give_up(const std::vector<std::string>& request_ids) {
  // Matched against these requests, not the remembered ones (there may be more of them).
  const std::set<std::string> requests(request_ids.begin(), request_ids.end());
  std::vector<std::string> held;
  for (const std::string& request : requests) {
    deliveries_.give_up(request);
  }
  for (const model::Reservation* reservation : holdings_.in_id_order()) {
    if (requests.count(model::attempt_of_placement(reservation->id)) > 0) {
      held.push_back(reservation->id);
    }
  }
  release(held);
}

}  // namespace unisched::actors
