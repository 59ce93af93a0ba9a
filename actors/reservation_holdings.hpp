// The reservations a ClusterActor holds (committed placements its agent has not confirmed yet)
// and the agent's truth of the nodes they sit on. Indexed by node, so that a commit or an update
// costs the reservations on its own nodes only: scanning every reservation per node made one
// commit beside 10,000 held reservations cost 60 times one beside none (`commit_among_held`).
//
// A step that may still fail records what it changed in an Undo and puts it back on failure,
// rather than copying every holding before it starts.
#pragma once

#include <absl/container/flat_hash_map.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "model/node_state.hpp"
#include "model/reservation.hpp"

namespace unisched::actors {

class ReservationHoldings {
 public:
  /// What a step erased and which truths it replaced, to be put back if the step fails.
  class Undo {
    friend class ReservationHoldings;
    std::vector<model::Reservation> erased_;
    // as before; null: there was none
    std::vector<std::pair<std::string, std::shared_ptr<const model::NodeState>>> truths_;
  };

  /// Every reservation held, by placement id.
  const std::map<std::string, model::Reservation>& reservations() const { return reservations_; }
  size_t size() const { return reservations_.size(); }
  bool empty() const { return reservations_.empty(); }
  bool contains(const std::string& id) const { return reservations_.count(id) > 0; }
  bool holds_on(const std::string& node) const { return ids_on_node_.count(node) > 0; }

  /// The node as schedulers see it: its truth plus the reservations on it (the truth itself,
  /// shared, when it holds none).
  std::shared_ptr<const model::NodeState> effective(
      const std::shared_ptr<const model::NodeState>& truth_node) const;
  /// The agent's state of a node that holds reservations (or did until this step); or null.
  std::shared_ptr<const model::NodeState> truth(const std::string& node) const;

  /// Holds a reservation whose id is not held yet.
  void add(model::Reservation reservation);
  /// Drops the reservation held by this id; returns its node, or nullopt when none is held.
  std::optional<std::string> erase(const std::string& id, Undo* undo = nullptr);
  /// Drops every reservation on the node; returns their ids in order.
  std::vector<std::string> erase_on(const std::string& node, Undo* undo = nullptr);

  void set_truth(const std::string& node, std::shared_ptr<const model::NodeState> truth,
                 Undo* undo = nullptr);
  void drop_truth(const std::string& node, Undo* undo = nullptr);
  void clear_truth() { truth_.clear(); }

  /// Puts back what the step that recorded `undo` changed.
  void restore(Undo undo);

 private:
  void erase_found(std::map<std::string, model::Reservation>::iterator found, Undo* undo);

  std::map<std::string, model::Reservation> reservations_;  // walked in id order
  // Looked up by node on every commit and update, never walked: hashed. The ids of a node are in
  // order (erase_on answers in it).
  absl::flat_hash_map<std::string, std::set<std::string>> ids_on_node_;  // nodes with reservations
  absl::flat_hash_map<std::string, std::shared_ptr<const model::NodeState>> truth_;  // never null
};

}  // namespace unisched::actors
