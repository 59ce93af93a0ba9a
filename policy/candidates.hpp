// The nodes of a cluster worth checking for a replica: for device demand, the free-device index
// of the view narrows them down without a scan.
#pragma once

#include <vector>

#include "model/cluster_view.hpp"
#include "policy/demand.hpp"

namespace unisched::policy {

std::vector<const model::NodeState*> candidate_nodes(const model::ClusterView& view,
                                                     const ReplicaDemand& demand);

}  // namespace unisched::policy
