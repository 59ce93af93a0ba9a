// The nodes of a cluster worth checking for a replica, from the view's indexes rather than a
// scan: by free devices of the model asked for, or by free cpu for work without devices.
#pragma once

#include <functional>

#include "model/cluster_view.hpp"
#include "policy/demand.hpp"
#include "policy/node_fit.hpp"

namespace unisched::policy {

/// Hands each candidate to `visit`, in a fixed order, until it returns false.
void visit_candidates(const model::ClusterView& view, const ReplicaDemand& demand,
                      const std::function<bool(const model::NodeState&)>& visit);

/// What the whole cluster lacks for one replica by its totals alone: cpu, memory, or devices of
/// the models asked for (free ones, or room for a share). A necessary test, in time proportional
/// to the cluster's device models rather than its nodes: a cluster it refuses has no node that
/// fits, so the node scan is skipped. nullopt: some node may fit.
std::optional<NodeMisfit> cluster_shortfall(const model::ClusterView& view,
                                            const ReplicaDemand& demand);

}  // namespace unisched::policy
