// Expands a ClusterResourceProfile into concrete nodes: one per node-group member, or the
// cluster totals spread evenly over spec.nodeCount nodes when there are no node groups.
#pragma once

#include <vector>

#include "model/cluster_profile.hpp"
#include "model/node_state.hpp"

namespace unisched::adapters {

/// The nodes a validated `profile` describes, named "<clusterID>-<group>-<n>". With
/// `node_count` > 0 that many nodes are built instead, cycling through the profile's shapes.
std::vector<model::NodeState> expand_nodes(const model::ClusterResourceProfile& profile,
                                           int64_t node_count = 0);

}  // namespace unisched::adapters
