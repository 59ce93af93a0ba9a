// What a node's pods use, apart from what the node is. Most node changes are only this (pods
// placed and ended); an agent sends such a change as its usage alone, and the centre puts it on
// the node's state as the agent last sent it.
#pragma once

#include <absl/container/inlined_vector.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/node_state.hpp"

namespace unisched::model {

struct NodeUsage {
  std::string name;
  int64_t allocated_cpu_milli = 0;
  int64_t allocated_memory_bytes = 0;
  int32_t pod_count = 0;
  absl::InlinedVector<int32_t, 8> device_allocated_milli;  ///< one per device, in its order
  std::vector<int32_t> host_ports_in_use;                  ///< ascending

  bool operator==(const NodeUsage& other) const;
  bool operator!=(const NodeUsage& other) const { return !(*this == other); }
};

NodeUsage usage_of(const NodeState& node);

/// Whether `after` is `before` but for what its pods use: a change an agent may send as usage.
bool only_usage_differs(const NodeState& before, const NodeState& after);

/// Puts `usage` on `node` in place of its own; why not when it is not that node's (another
/// name, another number of devices, a device share past kMaxDeviceAllocatedMilli or below 0), and
/// then `node` is as it was.
std::optional<std::string> apply_usage(const NodeUsage& usage, NodeState& node);

}  // namespace unisched::model
