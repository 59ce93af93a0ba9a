// Announces to an actor system every type that crosses a CAF link between unisched processes:
// the protobuf messages (messages/caf_types.hpp) and the typed actor handles that travel inside
// messages (an agent registering, a shard offering to host, a scheduler subscribing to a
// ClusterActor on a shard).
#pragma once

#include <caf/fwd.hpp>

namespace unisched::actors {

void register_actor_types(caf::actor_system_config& config);

}  // namespace unisched::actors
