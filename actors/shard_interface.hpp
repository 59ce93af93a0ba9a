// The shard's protocol, checked by the compiler (actors/shard_actor.hpp says more).
#pragma once

#include <caf/actor_control_block.hpp>

#include <string>

#include "actors/cluster_interface.hpp"

namespace unisched::actors {

/// The entry actor of a `unisched shard` process, hosting ClusterActors for one supervisor.
///   (bind)                                -> the sender is the supervisor of the hub the
///                                            shard joined, the only one it obeys
///   (spawn, cluster_id, agent, owner)     -> ClusterActor pulling from `agent`, stopping when
///                                            `owner` (the supervisor, only watched) stops
///   (clusters)                            -> ClusterList: the summaries of those it hosts
///                                            (one that does not answer in 2 s is left out)
using ShardActor = caf::typed_actor<caf::reacts_to<atoms::bind_atom>,
                                    caf::replies_to<atoms::spawn_atom, std::string, AgentActor,
                                                    caf::strong_actor_ptr>::with<ClusterActor>,
                                    caf::replies_to<atoms::clusters_atom>::with<v1::ClusterList>>;

}  // namespace unisched::actors
