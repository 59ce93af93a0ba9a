// The reservations a ClusterActor holds (committed placements its agent has not confirmed yet)
// and the agent's truth of the nodes they sit on. Indexed by node, so that a commit or an update
// costs the reservations on its own nodes only: scanning every reservation per node made one
// commit beside 10,000 held reservations cost 60 times one beside none (`commit_among_held`).
//
// A step that may still fail records what it changed in an Undo and puts it back on failure,
// rather than copying every holding before it starts.
//
// Hashed by id: every commit asks whether its ids are held and every confirmation erases one,
// and ordered maps of ids that share a long prefix ("client-3-...") spent that time comparing
// it. The rare walks (resends, a snapshot's check, a listing) sort what they walk.
#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/container/inlined_vector.h>

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

  /// Every reservation held, in placement id order.
  std::vector<const model::Reservation*> in_id_order() const;
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
  /// Drops the reservations the agent settled (carried out, refused or ended) and adds their
  /// nodes to `touched`.
  void settle(const std::vector<std::string>& applied,
              const std::vector<std::pair<std::string, std::string>>& refused,
              const std::vector<std::string>& finished, std::set<std::string>& touched,
              Undo* undo = nullptr);
  /// Drops every reservation on the node; returns their ids in order.
  std::vector<std::string> erase_on(const std::string& node, Undo* undo = nullptr);

  void set_truth(const std::string& node, std::shared_ptr<const model::NodeState> truth,
                 Undo* undo = nullptr);
  void drop_truth(const std::string& node, Undo* undo = nullptr);
  void clear_truth() { truth_.clear(); }

  /// Puts back what the step that recorded `undo` changed.
  void restore(Undo undo);

 private:
  using Reservations = absl::flat_hash_map<std::string, model::Reservation>;
  void erase_found(Reservations::iterator found, Undo* undo);

  Reservations reservations_;  // by placement id
  // The ids of a node's reservations, in order (erase_on answers in it): a node holds a few.
  using NodeIds = absl::InlinedVector<std::string, 2>;
  absl::flat_hash_map<std::string, NodeIds> ids_on_node_;  // nodes with reservations
  absl::flat_hash_map<std::string, std::shared_ptr<const model::NodeState>> truth_;  // never null
};

}  // namespace unisched::actors
