// The nodes of a cluster worth checking for a replica, from the view's indexes rather than a
// scan: by free devices of the model asked for, or by free cpu for work without devices.
#pragma once

#include <functional>

#include "model/cluster_view.hpp"
#include "policy/demand.hpp"

namespace unisched::policy {

/// Hands each candidate to `visit`, in a fixed order, until it returns false.
void visit_candidates(const model::ClusterView& view, const ReplicaDemand& demand,
                      const std::function<bool(const model::NodeState&)>& visit);

}  // namespace unisched::policy
