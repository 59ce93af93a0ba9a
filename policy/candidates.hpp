// The nodes of a cluster worth checking for a replica, from the view's indexes rather than a
// scan: by free devices of the model asked for, or by free cpu for work without devices.
#pragma once

#include <vector>

#include "model/cluster_view.hpp"
#include "policy/demand.hpp"

namespace unisched::policy {

std::vector<const model::NodeState*> candidate_nodes(const model::ClusterView& view,
                                                     const ReplicaDemand& demand);

}  // namespace unisched::policy
