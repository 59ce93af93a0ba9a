#include "actors/actor_types.hpp"

#include <caf/actor_system_config.hpp>

#include <thread>

#include "actors/shard_interface.hpp"

namespace unisched::actors {

void configure_actor_system(caf::actor_system_config& config) {
  messages::register_message_types(config);
  config.add_message_type<AgentActor>("unisched.AgentActor");
  config.add_message_type<ClusterIngestActor>("unisched.ClusterIngestActor");
  config.add_message_type<ClusterActor>("unisched.ClusterActor");
  config.add_message_type<ViewSubscriberActor>("unisched.ViewSubscriberActor");
  config.add_message_type<ShardActor>("unisched.ShardActor");
  config.add_message_type<PlacementListenerActor>("unisched.PlacementListenerActor");
  config.add_message_type<AdmissionListenerActor>("unisched.AdmissionListenerActor");
  config.add_message_type<QuotaActor>("unisched.QuotaActor");
  if (const unsigned cores = std::thread::hardware_concurrency(); cores > 0) {
    config.set("scheduler.max-threads", static_cast<size_t>(cores));
  }
}

}  // namespace unisched::actors
