// What travels from a metadata agent to the centre, in model terms: an incremental update
// between two versions, or a full snapshot at one version. messages/ converts these to and from
// the protobuf schema at the edges.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/node_state.hpp"

namespace unisched::model {

enum class HealthState { Unknown, Healthy, Degraded, Unhealthy };

struct ViewUpdate {
  std::string cluster_id;
  uint64_t epoch = 0;         ///< the agent's run; versions restart with each
  uint64_t base_version = 0;  ///< the version this update applies to
  uint64_t version = 0;       ///< the version after it: base_version + 1
  std::vector<NodeChange> changes;
  std::optional<ClusterResources> resources;  ///< set when the shared resources changed
  HealthState health = HealthState::Healthy;
};

struct ViewSnapshot {
  std::string cluster_id;
  uint64_t epoch = 0;
  uint64_t version = 0;
  std::vector<NodeState> nodes;
  ClusterResources resources;
};

}  // namespace unisched::model
