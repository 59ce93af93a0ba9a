// ShardActor: the entry actor of a `unisched shard` process, which hosts a share of the
// clusters' ClusterActors so that ingest spreads over hosts. The supervisor decides which
// clusters a shard hosts; the shard only starts them.
//
// Its protocol is ShardActor (actors/shard_interface.hpp). A spawn is refused unless sent by
// the supervisor that bound the shard; a hosted ClusterActor stops when its owner stops or its
// node is unreachable, and an exit stops every hosted ClusterActor too.
#pragma once

#include <caf/fwd.hpp>

#include <chrono>

#include "actors/cluster_actor.hpp"
#include "actors/shard_interface.hpp"

namespace unisched::actors {

/// A shard's settings: those of the ClusterActors it hosts, and how long it waits for each one's
/// summary when asked for its clusters.
struct ShardSettings {
  ClusterActorSettings cluster;
  std::chrono::milliseconds summary_timeout{2000};
};

ShardActor spawn_shard_actor(caf::actor_system& system, const ShardSettings& settings);

}  // namespace unisched::actors
