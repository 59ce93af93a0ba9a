#include "cores/cluster_deliveries.hpp"

#include <algorithm>

#include "model/request_attempt.hpp"
#include "model/reservation.hpp"

namespace unisched::actors {

ClusterDeliveries::Resend ClusterDeliveries::on_period(
    const std::vector<const model::Reservation*>& held, bool healthy) {
  Resend resend;
  std::map<std::string, int> ages;
  for (const model::Reservation* reservation : held) {
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
    if (healthy && ++it->second > kReleaseResends) {
      it = releasing_requests_.erase(it);
      continue;
    }
    resend.released_requests.push_back(it->first);
    ++it;
  }
  return resend;
}

bool ClusterDeliveries::committed_before(const Commit& commit) const {
  return !commit.reservations.empty() &&
         std::all_of(commit.reservations.begin(), commit.reservations.end(),
                     [&](const model::Reservation& r) { return committed_.contains(r.id); });
}

void ClusterDeliveries::note_committed(const Commit& commit) {
  for (const model::Reservation& reservation : commit.reservations) {
    committed_.insert(reservation.id);
  }
}

void ClusterDeliveries::confirm_ended(
    const std::vector<std::string>& finished,
    const std::vector<std::pair<std::string, std::string>>& refused) {
  for (const std::string& id : finished) {
    releasing_.erase(id);
  }
  for (const auto& [id, reason] : refused) {
    releasing_.erase(id);
  }
}

void ClusterDeliveries::give_up(const std::string& request_id) {
  given_up_.insert(request_id);
  releasing_requests_.emplace(request_id, 0);
}

void ClusterDeliveries::note_running(const std::vector<std::string>& applied) {
  for (const std::string& id : applied) {
    if (given_up(model::attempt_of_placement(id))) {
      releasing(id, 1);
    }
  }
}

}  // namespace unisched::actors
