// What one replica of a SchedulingRequest needs, in the exact units of the node view.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/node_state.hpp"
#include "model/scheduling_request.hpp"

namespace unisched::policy {

struct DeviceDemand {
  model::AcceleratorType type = model::AcceleratorType::GPU;
  std::vector<std::string> models;           ///< any of these; empty: any model of the type
  int32_t count = 0;                         ///< devices, all on one node
  int64_t min_memory_bytes = 0;              ///< per device
  std::optional<model::Interconnect> link;   ///< devices must share a group linked this well
  int32_t milli = model::kWholeDeviceMilli;  ///< of each device: below 1000 a share of one
};

struct ReplicaDemand {
  int64_t cpu_milli = 0;
  int64_t memory_bytes = 0;
  std::vector<DeviceDemand> devices;
  std::vector<int32_t> host_ports;  ///< ascending
};

/// The demand of one replica of a validated request.
ReplicaDemand demand_of(const model::SchedulingRequestSpec& spec);

}  // namespace unisched::policy
