#include "actors/actor_types.hpp"

#include <caf/actor_system_config.hpp>

#include "actors/shard_interface.hpp"

namespace unisched::actors {

void register_actor_types(caf::actor_system_config& config) {
  messages::register_message_types(config);
  config.add_message_type<AgentActor>("unisched.AgentActor");
  config.add_message_type<ClusterIngestActor>("unisched.ClusterIngestActor");
  config.add_message_type<ClusterActor>("unisched.ClusterActor");
  config.add_message_type<ViewSubscriberActor>("unisched.ViewSubscriberActor");
  config.add_message_type<ShardActor>("unisched.ShardActor");
  config.add_message_type<PlacementListenerActor>("unisched.PlacementListenerActor");
  config.add_message_type<AdmissionListenerActor>("unisched.AdmissionListenerActor");
  config.add_message_type<QuotaActor>("unisched.QuotaActor");
}

}  // namespace unisched::actors
