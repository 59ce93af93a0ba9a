#include "cores/placement_ledger.hpp"

#include <algorithm>

namespace unisched::actors {

void PlacementLedger::note_outcomes(
    const std::vector<std::string>& finished,
    const std::vector<std::pair<std::string, std::string>>& refused) {
  for (const std::string& id : finished) {
    running_.erase(id);
    ended_.insert(id);
  }
  for (const auto& [id, reason] : refused) {
    running_.erase(id);
    refused_.insert(id);
  }
}

void PlacementLedger::note_running(const std::vector<std::string>& applied) {
  for (const std::string& id : applied) {
    // An update held back behind a gap may report a start after the end was already told.
    if (!ended_.contains(id) && !refused_.contains(id)) {
      running_.insert(id);
    }
  }
}

void PlacementLedger::replace_running(const std::vector<std::string>& applied) {
  running_.clear();
  note_running(applied);
}

std::vector<std::string> PlacementLedger::running_in_order() const {
  std::vector<std::string> running(running_.begin(), running_.end());
  std::sort(running.begin(), running.end());
  return running;
}

PlacementLedger::State PlacementLedger::state(const std::string& placement_id) const {
  if (running_.count(placement_id) > 0) {
    return State::Running;
  }
  if (ended_.contains(placement_id)) {
    return State::Ended;
  }
  if (refused_.contains(placement_id)) {
    return State::Refused;
  }
  return State::Unknown;
}

}  // namespace unisched::actors
