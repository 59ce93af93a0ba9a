// A reservation: what a committed placement takes on one node before the cluster confirms it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/node_state.hpp"

namespace unisched::model {

struct Reservation {
  std::string id;  ///< unique placement id, e.g. "llm-pretrain/3"
  std::string node;
  int64_t cpu_milli = 0;
  int64_t memory_bytes = 0;
  std::vector<int32_t> devices;     ///< devices, by index
  std::vector<int32_t> host_ports;  ///< ascending
  /// The milli taken on each of `devices` (a share of a device below 1000); empty: every
  /// device whole.
  std::vector<int32_t> device_milli;
  /// The request's PodTemplateSpec as JSON, for adapters that create workloads; empty: none.
  std::string pod_template;
};

/// Why `reservation` cannot be taken on `node` as it is, or nullopt when it can.
std::optional<std::string> reservation_conflict(const NodeState& node,
                                                const Reservation& reservation);

/// Adds (sign +1) or removes (sign -1) the reservation's resources on `node`.
void apply_reservation(NodeState& node, const Reservation& reservation, int sign);

}  // namespace unisched::model
