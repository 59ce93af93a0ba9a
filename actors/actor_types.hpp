// What every unisched actor system is configured with: the types that cross a CAF link between
// unisched processes (the protobuf messages of messages/caf_types.hpp and the typed actor
// handles that travel inside messages: an agent registering, a shard offering to host, a
// scheduler subscribing to a ClusterActor on a shard), and the size of its pool of workers.
#pragma once

#include <caf/fwd.hpp>

namespace unisched::actors {

/// Announces the types and runs one worker per hardware thread. CAF's own default,
/// max(cores, 4), runs four workers on two cores, and the two extra cost a fifth of the decisions
/// per second in thread switches and idle polling (docs/benchmarks-history.md, "One CAF worker per
/// core"). The price: an agent whose adapter calls its cluster (Kubernetes, Slurm) or a hub waiting
/// on its journal's fsync holds one of fewer workers meanwhile. Not detached: CAF 0.17 then waits
/// at shutdown until the actor's last reference is gone, and `unisched serve` hung on SIGTERM.
void configure_actor_system(caf::actor_system_config& config);

}  // namespace unisched::actors
