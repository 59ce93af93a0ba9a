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

/// Whether the whole cluster has too few devices of the models asked for to hold one replica
/// (free ones for whole devices; any for a share). A necessary test, in time proportional to
/// the cluster's device models rather than its nodes: a cluster it refuses has no node that
/// fits, so the node scan is skipped. false: some node may fit. (Work without devices is found
/// through the free-cpu index, which needs no such shortcut.)
bool too_few_devices(const model::ClusterView& view, const ReplicaDemand& demand);

}  // namespace unisched::policy
