#include "runtime/cluster_queries.hpp"

#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>

#include <algorithm>
#include <thread>

#include "messages/caf_types.hpp"

namespace unisched::runtime {

using namespace unisched::atoms;

std::vector<v1::ClusterSummary> query_summaries(caf::actor_system& system,
                                                const actors::SupervisorActor& supervisor,
                                                const std::vector<std::string>& ids,
                                                std::vector<std::string>* problems,
                                                const LocalWaits& waits) {
  caf::scoped_actor self{system};
  std::vector<v1::ClusterSummary> summaries;
  for (const std::string& id : ids) {
    self->request(supervisor, waits.answer, summary_atom_v, id)
        .receive([&](v1::ClusterSummary& summary) { summaries.push_back(std::move(summary)); },
                 [&](caf::error& error) {
                   if (problems != nullptr) {
                     problems->push_back(id + ": no summary: " + to_string(error));
                   }
                 });
  }
  return summaries;
}

bool wait_until_healthy(caf::actor_system& system, const actors::SupervisorActor& supervisor,
                        const std::vector<std::string>& ids, const LocalWaits& waits) {
  for (const auto ready_by = std::chrono::steady_clock::now() + waits.clusters_healthy;;) {
    const auto summaries = query_summaries(system, supervisor, ids, nullptr, waits);
    if (summaries.size() == ids.size() && std::all_of(summaries.begin(), summaries.end(),
                                                      [](const auto& c) { return c.healthy(); })) {
      return true;
    }
    if (std::chrono::steady_clock::now() >= ready_by) {
      return false;
    }
    std::this_thread::sleep_for(waits.poll);
  }
}

}  // namespace unisched::runtime
