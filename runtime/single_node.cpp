#include "runtime/single_node.hpp"

#include <spdlog/spdlog.h>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>

#include <thread>

#include "messages/caf_types.hpp"

namespace unisched::runtime {
namespace {

using namespace unisched::atoms;
using Clock = std::chrono::steady_clock;

std::vector<v1::ClusterSummary> query_summaries(caf::actor_system& system,
                                                const caf::actor& supervisor,
                                                const std::vector<std::string>& ids,
                                                std::vector<std::string>* problems) {
  caf::scoped_actor self{system};
  std::vector<v1::ClusterSummary> summaries;
  for (const std::string& id : ids) {
    self->request(supervisor, std::chrono::seconds(2), summary_atom_v, id)
        .receive([&](v1::ClusterSummary& summary) { summaries.push_back(std::move(summary)); },
                 [&](caf::error& error) {
                   if (problems != nullptr) {
                     problems->push_back(id + ": no summary: " + to_string(error));
                   }
                 });
  }
  return summaries;
}

/// An agent runs beside its cluster: when one dies, a new run of it (a new epoch) starts over
/// the same cluster and registers again.
void restart_dead_agents(caf::actor_system& system, caf::scoped_actor& watcher,
                         const caf::actor& supervisor, const std::vector<std::string>& ids,
                         std::vector<caf::actor>& agents,
                         const std::vector<std::shared_ptr<adapters::SimulatedCluster>>& adapters,
                         const actors::AgentSettings& settings) {
  bool idle = false;
  while (!idle) {
    watcher->receive(
        [&](caf::down_msg& down) {
          const auto dead = std::find(agents.begin(), agents.end(), down.source);
          if (dead == agents.end()) {
            return;
          }
          const size_t i = static_cast<size_t>(dead - agents.begin());
          spdlog::warn("agent {} exited ({}); starting it again", ids[i], to_string(down.reason));
          const auto epoch =
              static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
          agents[i] = actors::spawn_agent_actor(system, adapters[i], epoch, settings);
          watcher->monitor(agents[i]);
          watcher->request(supervisor, std::chrono::seconds(5), register_atom_v, ids[i], agents[i])
              .receive([](caf::actor&) {},
                       [&](caf::error& error) {
                         spdlog::error("agent {}: not registered again: {}", ids[i],
                                       to_string(error));
                       });
        },
        caf::after(std::chrono::milliseconds(0)) >> [&] { idle = true; });
  }
}

}  // namespace

std::vector<model::ClusterResourceProfile> plan_clusters(
    const std::vector<model::ClusterResourceProfile>& profiles, int count) {
  std::vector<model::ClusterResourceProfile> clusters;
  const size_t total = count > 0 ? static_cast<size_t>(count) : profiles.size();
  for (size_t i = 0; i < total && !profiles.empty(); ++i) {
    model::ClusterResourceProfile cluster = profiles[i % profiles.size()];
    if (i >= profiles.size()) {
      cluster.spec.cluster_id += "-" + std::to_string(i / profiles.size() + 1);
      cluster.metadata.name = cluster.spec.cluster_id;
    }
    clusters.push_back(std::move(cluster));
  }
  return clusters;
}

RunReport run_single_node(
    const std::vector<model::ClusterResourceProfile>& clusters, const RunOptions& options,
    const std::function<void(std::chrono::milliseconds, const std::vector<v1::ClusterSummary>&)>&
        progress) {
  caf::actor_system_config config;
  messages::register_message_types(config);
  caf::actor_system system{config};
  const caf::actor supervisor = actors::spawn_supervisor(system, options.supervisor);

  std::vector<std::string> ids;
  std::vector<caf::actor> agents;
  std::vector<std::shared_ptr<adapters::SimulatedCluster>> adapters;
  caf::scoped_actor watcher{system};  // told when an agent dies, to start it again
  // Each run of an agent gets a fresh epoch, so a restart is never taken for a gap.
  const auto epoch_base =
      static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
  {
    caf::scoped_actor& self = watcher;
    for (size_t i = 0; i < clusters.size(); ++i) {
      adapters::SimulationOptions simulation = options.simulation;
      simulation.seed = options.seed + i;
      simulation.node_count = options.nodes_per_cluster;
      auto adapter = std::make_shared<adapters::SimulatedCluster>(clusters[i], simulation);
      const std::string id = clusters[i].spec.cluster_id;
      const caf::actor agent =
          actors::spawn_agent_actor(system, adapter, epoch_base + i, options.agent);
      watcher->monitor(agent);
      adapters.push_back(std::move(adapter));
      self->request(supervisor, std::chrono::seconds(5), register_atom_v, id, agent)
          .receive([](caf::actor&) {},
                   [&](caf::error& error) {
                     spdlog::error("cluster {}: not registered: {}", id, to_string(error));
                   });
      ids.push_back(id);
      agents.push_back(agent);
    }
  }
  spdlog::info("started {} simulated clusters; running for {} ms", clusters.size(),
               options.duration.count());

  const auto start = Clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  };
  std::vector<bool> cut_off(options.partitions.size(), false);
  auto next_progress = options.progress_interval;
  while (elapsed() < options.duration) {
    std::this_thread::sleep_for(
        std::min(std::chrono::milliseconds(50), options.duration - elapsed()));
    const auto now = elapsed();
    for (size_t p = 0; p < options.partitions.size(); ++p) {
      const Partition& partition = options.partitions[p];
      const bool should_be_cut = now >= partition.start && now < partition.start + partition.length;
      const auto at = std::find(ids.begin(), ids.end(), partition.cluster_id);
      if (should_be_cut != cut_off[p] && at != ids.end()) {
        caf::anon_send(agents[static_cast<size_t>(at - ids.begin())], online_atom_v,
                       !should_be_cut);
        cut_off[p] = should_be_cut;
      }
    }
    restart_dead_agents(system, watcher, supervisor, ids, agents, adapters, options.agent);
    if (now >= next_progress) {
      progress(now, query_summaries(system, supervisor, ids, nullptr));
      next_progress += options.progress_interval;
    }
  }

  RunReport report;
  report.clusters = query_summaries(system, supervisor, ids, &report.problems);
  report.elapsed = elapsed();
  for (const auto& summary : report.clusters) {
    report.deltas_applied += summary.deltas_applied();
  }
  for (const caf::actor& agent : agents) {
    watcher->demonitor(agent);
    caf::anon_send_exit(agent, caf::exit_reason::user_shutdown);
  }
  caf::anon_send_exit(supervisor, caf::exit_reason::user_shutdown);
  return report;
}

}  // namespace unisched::runtime
