#include "actors/shard_actor.hpp"

#include <spdlog/spdlog.h>
#include <caf/actor_cast.hpp>
#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include <algorithm>
#include <memory>
#include <vector>

#include "actors/countdown.hpp"
#include "messages/caf_types.hpp"
#include "messages/errors.hpp"

namespace unisched::actors {
namespace {

using namespace unisched::atoms;

struct ShardState {
  caf::strong_actor_ptr supervisor;  // the only one that may start ClusterActors here
  std::vector<ClusterActor> hosted;
  static inline const char* name = "shard";
};

using Self = ShardActor::stateful_pointer<ShardState>;

ShardActor::behavior_type shard(Self self, ShardSettings settings) {
  // The hosted ClusterActors stop with their supervisor, but a shard that is told to stop takes
  // them down itself: its process cannot end while they live.
  self->set_exit_handler([=](caf::exit_msg& exit) {
    for (const ClusterActor& hosted : self->state.hosted) {
      self->send_exit(hosted, exit.reason);
    }
    self->quit(exit.reason);
  });
  return {
      [=](bind_atom) { self->state.supervisor = self->current_sender(); },
      [=](spawn_atom, const std::string& cluster_id, const AgentActor& agent,
          const caf::strong_actor_ptr& owner) -> caf::result<ClusterActor> {
        if (!self->state.supervisor || self->current_sender() != self->state.supervisor) {
          spdlog::warn("shard: refused to host cluster {}: not asked by the hub's supervisor",
                       cluster_id);
          return messages::make_error(messages::Error::Unauthenticated,
                                      "only the supervisor of the hub this shard joined may start "
                                      "ClusterActors here");
        }
        if (cluster_id.empty() || !agent || !owner) {
          return messages::make_error(messages::Error::InvalidArgument,
                                      "a ClusterActor needs a cluster id, an agent and an owner");
        }
        spdlog::info("shard: hosting the ClusterActor of cluster {}", cluster_id);
        auto& hosted = self->state.hosted;
        hosted.erase(std::remove_if(hosted.begin(), hosted.end(),
                                    [](const ClusterActor& actor) {
                                      return actor->getf(caf::abstract_actor::is_terminated_flag);
                                    }),
                     hosted.end());
        hosted.push_back(
            spawn_cluster_actor(self->system(), cluster_id, agent, owner, settings.cluster));
        return hosted.back();
      },
      [=](clusters_atom) -> caf::result<v1::ClusterList> {
        auto promise = std::make_shared<caf::typed_response_promise<v1::ClusterList>>(
            self->make_response_promise<v1::ClusterList>());
        auto list = std::make_shared<v1::ClusterList>();
        const Countdown one_more(self->state.hosted.size(), [=] { promise->deliver(*list); });
        for (const ClusterActor& hosted : self->state.hosted) {
          self->request(hosted, settings.summary_timeout, summary_atom_v)
              .then(
                  [=](v1::ClusterSummary& summary) {
                    *list->add_clusters() = std::move(summary);
                    one_more();
                  },
                  [=](caf::error&) { one_more(); });
        }
        return *promise;
      },
  };
}

}  // namespace

ShardActor spawn_shard_actor(caf::actor_system& system, const ShardSettings& settings) {
  return system.spawn(shard, settings);
}

}  // namespace unisched::actors
