// The hub: the centre's entry actor, published by `unisched serve`. Agents register their
// clusters through it; clients read the clusters through it.
//
// Protocol:
//   (register_atom, cluster_id, agent) -> actor: the cluster's ClusterActor (via the supervisor)
//   (clusters_atom)                    -> ClusterList: a summary of every registered cluster
#pragma once

#include <caf/fwd.hpp>

namespace unisched::runtime {

caf::actor spawn_hub(caf::actor_system& system, const caf::actor& supervisor);

}  // namespace unisched::runtime
