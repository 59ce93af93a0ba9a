#include "cores/reservation_holdings.hpp"

#include <algorithm>

namespace unisched::actors {

std::vector<const model::Reservation*> ReservationHoldings::in_id_order() const {
  std::vector<const model::Reservation*> held;
  held.reserve(reservations_.size());
  for (const auto& [id, reservation] : reservations_) {
    held.push_back(&reservation);
  }
  std::sort(held.begin(), held.end(),
            [](const model::Reservation* a, const model::Reservation* b) { return a->id < b->id; });
  return held;
}

std::shared_ptr<const model::NodeState> ReservationHoldings::effective(
    const std::shared_ptr<const model::NodeState>& truth_node) const {
  const auto ids = ids_on_node_.find(truth_node->name);
  if (ids == ids_on_node_.end()) {
    return truth_node;
  }
  auto node = std::make_shared<model::NodeState>(*truth_node);
  for (const std::string& id : ids->second) {
    model::apply_reservation(*node, reservations_.at(id), +1);
  }
  return node;
}

std::shared_ptr<const model::NodeState> ReservationHoldings::truth(const std::string& node) const {
  const auto found = truth_.find(node);
  return found == truth_.end() ? nullptr : found->second;
}

void ReservationHoldings::add(model::Reservation reservation) {
  NodeIds& ids = ids_on_node_[reservation.node];
  ids.insert(std::lower_bound(ids.begin(), ids.end(), reservation.id), reservation.id);
  std::string id = reservation.id;
  reservations_.emplace(std::move(id), std::move(reservation));
}

void ReservationHoldings::erase_found(Reservations::iterator found, Undo* undo) {
  const auto ids = ids_on_node_.find(found->second.node);
  ids->second.erase(std::lower_bound(ids->second.begin(), ids->second.end(), found->first));
  if (ids->second.empty()) {
    ids_on_node_.erase(ids);
  }
  if (undo != nullptr) {
    undo->erased_.push_back(std::move(found->second));
  }
  reservations_.erase(found);
}

std::optional<std::string> ReservationHoldings::erase(const std::string& id, Undo* undo) {
  const auto found = reservations_.find(id);
  if (found == reservations_.end()) {
    return std::nullopt;
  }
  std::string node = found->second.node;
  erase_found(found, undo);
  return node;
}

std::vector<std::string> ReservationHoldings::erase_on(const std::string& node, Undo* undo) {
  std::vector<std::string> erased;
  if (const auto ids = ids_on_node_.find(node); ids != ids_on_node_.end()) {
    erased.assign(ids->second.begin(), ids->second.end());
  }
  for (const std::string& id : erased) {
    erase_found(reservations_.find(id), undo);
  }
  return erased;
}

void ReservationHoldings::set_truth(const std::string& node,
                                    std::shared_ptr<const model::NodeState> truth, Undo* undo) {
  auto [at, inserted] = truth_.try_emplace(node);
  if (undo != nullptr) {
    undo->truths_.emplace_back(node, std::move(at->second));  // null when new
  }
  at->second = std::move(truth);
}

void ReservationHoldings::drop_truth(const std::string& node, Undo* undo) {
  const auto found = truth_.find(node);
  if (found == truth_.end()) {
    return;
  }
  if (undo != nullptr) {
    undo->truths_.emplace_back(node, std::move(found->second));
  }
  truth_.erase(found);
}

void ReservationHoldings::restore(Undo undo) {
  for (auto it = undo.truths_.rbegin(); it != undo.truths_.rend(); ++it) {
    if (it->second) {
      truth_[it->first] = std::move(it->second);
    } else {
      truth_.erase(it->first);
    }
  }
  for (model::Reservation& reservation : undo.erased_) {
    add(std::move(reservation));
  }
}

void ReservationHoldings::settle(const std::vector<std::string>& applied,
                                 const std::vector<std::pair<std::string, std::string>>& refused,
                                 const std::vector<std::string>& finished,
                                 std::set<std::string>& touched, Undo* undo) {
  // A finished placement ran: its reservation is settled even when the report that it was
  // applied was lost (found by `unisched simulate --faults partition`).
  for (const auto* ids : {&applied, &finished}) {
    for (const std::string& id : *ids) {
      if (auto node = erase(id, undo)) {
        touched.insert(std::move(*node));
      }
    }
  }
  for (const auto& [id, reason] : refused) {
    if (auto node = erase(id, undo)) {
      touched.insert(std::move(*node));
    }
  }
}

}  // namespace unisched::actors
