// What one replica of a SchedulingRequest needs, in the exact units of the node view.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "model/node_state.hpp"
#include "model/scheduling_request.hpp"

namespace unisched::policy {

/// The models a device demand accepts, read by model_matches ("A100" accepts
/// "NVIDIA-A100-SXM4-80GB"), each device model's verdict remembered: a decision asks it of every
/// device of every node it visits, and a cluster has a few models. Empty: any model.
class ModelFilter {
 public:
  ModelFilter() = default;
  ModelFilter(std::vector<std::string> wanted) : wanted_(std::move(wanted)) {}  // NOLINT: implicit
  ModelFilter(std::initializer_list<std::string> wanted) : wanted_(wanted) {}

  bool empty() const { return wanted_.empty(); }
  const std::vector<std::string>& wanted() const { return wanted_; }
  bool accepts(const model::Symbol& model) const;

 private:
  std::vector<std::string> wanted_;
  // Interned models share their text's address, so the address is the key.
  mutable std::vector<std::pair<const std::string*, bool>> verdicts_;
};

struct DeviceDemand {
  model::AcceleratorType type = model::AcceleratorType::GPU;
  /// "nvidia.com/gpu": only devices of it, or of its kind where the profile named no resource;
  /// empty: any device of `type`
  std::string resource;
  ModelFilter models;                        ///< any of these; empty: any model
  int32_t count = 0;                         ///< devices, all on one node
  int64_t min_memory_bytes = 0;              ///< per device
  std::optional<model::Interconnect> link;   ///< devices must share a group linked this well
  int32_t min_link_generation = 0;           ///< and of at least this generation; 0: any
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
