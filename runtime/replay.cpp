#include "runtime/replay.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>

#include "actors/actor_types.hpp"
#include "actors/agent_actor.hpp"
#include "actors/scheduler_actor.hpp"
#include "actors/supervisor.hpp"
#include "adapters/gpu_trace_workload.hpp"
#include "adapters/simulated_cluster.hpp"
#include "messages/caf_types.hpp"
#include "runtime/cluster_queries.hpp"
#include "runtime/replay_parts.hpp"

namespace unisched::runtime {
namespace {

using namespace unisched::atoms;
using adapters::TracePod;
using replay_parts::Mirror;
using replay_parts::ReplaySetup;
using replay_parts::TraceClusters;

/// The milli-GPU allocated in the ClusterActors' views.
int64_t allocated_in_views(caf::scoped_actor& self, const actors::SupervisorActor& supervisor,
                           const std::vector<std::string>& ids, const LocalWaits& waits,
                           std::vector<std::string>& problems) {
  int64_t total = 0;
  for (const std::string& id : ids) {
    self->request(supervisor, waits.answer, clusters_atom_v, id)
        .receive(
            [&](actors::ClusterActor& cluster) {
              self->request(cluster, waits.large_answer, view_atom_v)
                  .receive(
                      [&](v1::ClusterSnapshot& view) {
                        for (const auto& node : view.nodes()) {
                          for (const auto& device : node.accelerators()) {
                            total += device.allocated_milli();
                          }
                        }
                      },
                      [&](caf::error& error) { problems.push_back(id + ": " + to_string(error)); });
            },
            [&](caf::error& error) { problems.push_back(id + ": " + to_string(error)); });
  }
  return total;
}

/// The replay's actors: a supervisor, an agent per cluster, and the scheduler.
struct ReplayActors {
  actors::SupervisorActor supervisor;
  std::vector<std::string> ids;
  std::vector<actors::LocalAgentActor> agents;
  std::vector<policy::ClusterInfo> infos;
  actors::SchedulerActor scheduler;

  void stop() const {
    for (const actors::LocalAgentActor& agent : agents) {
      caf::anon_send_exit(agent, caf::exit_reason::user_shutdown);
    }
    if (scheduler) {
      caf::anon_send_exit(scheduler, caf::exit_reason::user_shutdown);
    }
    caf::anon_send_exit(supervisor, caf::exit_reason::user_shutdown);
  }
};

/// Starts an agent per cluster of quiet simulated nodes (the trace's, and only the replay's
/// pods), registers it, and records its nodes in `mirror`.
void start_clusters(caf::actor_system& system, caf::scoped_actor& self,
                    const ReplayOptions& options, const TraceClusters& clusters, Mirror& mirror,
                    ReplayActors& fleet, ReplayReport& report) {
  for (size_t c = 0; c < clusters.profiles.size(); ++c) {
    auto adapter = std::make_shared<adapters::SimulatedCluster>(
        clusters.profiles[c], replay_parts::quiet_simulation(options, clusters, c));
    const std::string id = clusters.profiles[c].spec.cluster_id;
    for (const model::NodeState& node : adapter->list_nodes()) {
      mirror.add(id, node);
    }
    const auto agent = actors::spawn_agent_actor(system, adapter, 1, {});
    self->request(fleet.supervisor, options.waits.registration, register_atom_v, id,
                  actors::AgentActor{agent})
        .receive([](actors::ClusterActor&) {},
                 [&](caf::error& error) {
                   report.problems.push_back(id + ": not registered: " + to_string(error));
                 });
    fleet.ids.push_back(id);
    fleet.agents.push_back(agent);
    fleet.infos.push_back({id, "trace", "trace-a", model::MachineType::VirtualMachine, false});
  }
}

/// The scheduler of the replay's policy, once every cluster is healthy.
void start_scheduler(caf::actor_system& system, const ReplayOptions& options,
                     const std::vector<policy::PodShape>& typical, ReplayActors& fleet,
                     ReplayReport& report) {
  const auto policy = replay_parts::replay_policy(options, typical, report);
  if (!policy) {
    return;
  }
  actors::SchedulerSettings settings;
  settings.draw_seed = options.seed + 1;  // random draws follow the run's seed
  fleet.scheduler =
      actors::spawn_scheduler_actor(system, fleet.supervisor, fleet.infos, *policy, settings);
  if (!wait_until_healthy(system, fleet.supervisor, fleet.ids, options.waits)) {
    report.problems.push_back("the clusters did not become healthy within " +
                              std::to_string(options.waits.clusters_healthy.count()) + " ms");
  }
}

/// Asks the scheduler for one pod's decision.
std::optional<v1::SchedulingDecision> decide_by_actor(caf::scoped_actor& self,
                                                      const actors::SchedulerActor& scheduler,
                                                      const TracePod& pod,
                                                      std::chrono::milliseconds wait,
                                                      ReplayReport& report) {
  std::optional<v1::SchedulingDecision> decision;
  self->request(scheduler, wait, submit_atom_v, pod.name, adapters::request_for(pod))
      .receive([&](v1::SchedulingDecision& answer) { decision = std::move(answer); },
               [&](caf::error& error) {
                 report.problems.push_back(pod.name + ": no decision: " + to_string(error));
               });
  return decision;
}

/// The replay through the actors: agents over simulated clusters, their ClusterActors, and one
/// SchedulerActor asked for each pod in turn.
void replay_through_actors(const ReplayOptions& options, const ReplaySetup& setup, Mirror& mirror,
                           ReplayReport& report,
                           const std::function<void(size_t, size_t)>& progress) {
  caf::actor_system_config config;
  actors::configure_actor_system(config);
  caf::actor_system system{config};
  caf::scoped_actor self{system};
  ReplayActors fleet;
  fleet.supervisor = actors::spawn_supervisor(system, actors::SupervisorSettings{});
  start_clusters(system, self, options, setup.clusters, mirror, fleet, report);
  if (report.problems.empty()) {
    start_scheduler(system, options, setup.typical, fleet, report);
  }
  if (report.problems.empty()) {
    replay_parts::replay_arrivals(
        setup.arrivals,
        [&](const TracePod& pod) {
          return decide_by_actor(self, fleet.scheduler, pod, options.waits.decision, report);
        },
        mirror, report, progress);
  }
  if (report.problems.empty()) {
    report.view_allocated_milli =
        allocated_in_views(self, fleet.supervisor, fleet.ids, options.waits, report.problems);
  }
  fleet.stop();
}

}  // namespace

ReplayReport replay(const ReplayOptions& options,
                    const std::function<void(size_t, size_t)>& progress) {
  ReplayReport report;
  const std::optional<ReplaySetup> setup = replay_parts::replay_setup(options, report);
  if (!setup) {
    return report;
  }
  Mirror mirror(setup->typical);
  if (options.direct) {
    replay_parts::replay_direct(options, *setup, mirror, report, progress);
  } else {
    replay_through_actors(options, *setup, mirror, report, progress);
  }
  return report;
}

}  // namespace unisched::runtime
