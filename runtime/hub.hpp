// The hub: the centre's entry actor, published by `unisched serve`. Agents register their
// clusters through it; clients read the clusters through it.
//
// Protocol:
//   (register_atom, cluster_id, token, agent) -> actor: the cluster's ClusterActor (via the
//                                      supervisor); with tokens configured, the token must be
//                                      the cluster's, or the registration is refused and logged
//   (clusters_atom)                    -> ClusterList: a summary of every registered cluster
#pragma once

#include <caf/fwd.hpp>

#include <map>
#include <string>

namespace unisched::runtime {

/// `tokens` maps clusterIDs to their tokens; empty: no token is checked.
caf::actor spawn_hub(caf::actor_system& system, const caf::actor& supervisor,
                     const std::map<std::string, std::string>& tokens);

}  // namespace unisched::runtime
