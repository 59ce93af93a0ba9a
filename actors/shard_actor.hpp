// ShardActor: the entry actor of a `unisched shard` process, which hosts a share of the
// clusters' ClusterActors so that ingest spreads over hosts. The supervisor decides which
// clusters a shard hosts; the shard only starts them.
//
// Protocol:
//   (bind_atom, supervisor)                   the supervisor of the hub the shard joined
//   (spawn_atom, cluster_id, agent, owner) -> actor: a new ClusterActor for the cluster, pulling
//                                             from `agent`; it stops when `owner` (the
//                                             supervisor) stops or its node is unreachable.
//                                             Refused unless sent by the bound supervisor.
//   exit                                      stops every hosted ClusterActor too
#pragma once

#include <caf/fwd.hpp>

#include "actors/cluster_actor.hpp"

namespace unisched::actors {

caf::actor spawn_shard_actor(caf::actor_system& system, const ClusterActorSettings& settings);

}  // namespace unisched::actors
