#include "runtime/hub.hpp"

#include <spdlog/spdlog.h>
#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>

#include <memory>
#include <set>

#include "messages/caf_types.hpp"

namespace unisched::runtime {
namespace {

using namespace unisched::atoms;

struct HubData {
  caf::actor supervisor;
  std::map<std::string, std::string> tokens;
  std::set<std::string> clusters;
  static inline const char* name = "hub";
};

using Self = caf::stateful_actor<HubData>;

caf::behavior hub(Self* self, caf::actor supervisor, std::map<std::string, std::string> tokens) {
  self->state.supervisor = std::move(supervisor);
  self->state.tokens = std::move(tokens);
  return {
      [=](register_atom, const std::string& id, const std::string& token,
          caf::actor agent) -> caf::result<caf::actor> {
        const auto& tokens = self->state.tokens;
        if (!tokens.empty()) {
          const auto expected = tokens.find(id);
          if (expected == tokens.end() || expected->second != token) {
            const std::string why = expected == tokens.end()
                                        ? "no token is configured for cluster \"" + id + "\""
                                        : "wrong token for cluster \"" + id + "\"";
            spdlog::warn("hub: registration refused: {}", why);
            return caf::make_error(caf::sec::invalid_argument, why);
          }
        }
        auto promise = self->make_response_promise<caf::actor>();
        self->request(self->state.supervisor, std::chrono::seconds(5), register_atom_v, id, agent)
            .then(
                [=](caf::actor& cluster_actor) mutable {
                  self->state.clusters.insert(id);
                  spdlog::info("hub: cluster {} joined", id);
                  promise.deliver(cluster_actor);
                },
                [=](caf::error& error) mutable {
                  spdlog::warn("hub: cluster {} refused: {}", id, to_string(error));
                  promise.deliver(std::move(error));
                });
        return promise;
      },
      [=](clusters_atom) -> caf::result<v1::ClusterList> {
        // Fan out to every cluster's summary; answer once all replied (or failed).
        auto promise = std::make_shared<caf::typed_response_promise<v1::ClusterList>>(
            self->make_response_promise<v1::ClusterList>());
        auto list = std::make_shared<v1::ClusterList>();
        auto waiting = std::make_shared<size_t>(self->state.clusters.size());
        if (*waiting == 0) {
          promise->deliver(*list);
          return *promise;
        }
        const auto answered = [=] {
          if (--*waiting == 0) {
            promise->deliver(*list);
          }
        };
        for (const std::string& id : self->state.clusters) {
          self->request(self->state.supervisor, std::chrono::seconds(2), summary_atom_v, id)
              .then(
                  [=](v1::ClusterSummary& summary) {
                    *list->add_clusters() = std::move(summary);
                    answered();
                  },
                  [=](caf::error&) { answered(); });
        }
        return *promise;
      },
  };
}

}  // namespace

caf::actor spawn_hub(caf::actor_system& system, const caf::actor& supervisor,
                     const std::map<std::string, std::string>& tokens) {
  return system.spawn(hub, supervisor, tokens);
}

}  // namespace unisched::runtime
