#include "runtime/single_node.hpp"

#include <spdlog/spdlog.h>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>

#include <thread>

#include "actors/actor_types.hpp"
#include "messages/caf_types.hpp"
#include "messages/convert.hpp"
#include "messages/snapshot_parts.hpp"
#include "policy/framework.hpp"
#include "runtime/cluster_queries.hpp"
#include "runtime/workload.hpp"
#include "runtime/workload_client.hpp"

namespace unisched::runtime {
namespace {

using namespace unisched::atoms;
using Clock = std::chrono::steady_clock;

/// How often the run lets the workload's requests arrive and looks at its partitions.
constexpr std::chrono::milliseconds kArrivalTick{50};

/// The single-node runtime's actors.
struct Fleet {
  Fleet(caf::actor_system& system, const LocalWaits& waits) : waits(waits), watcher(system) {}

  LocalWaits waits;
  actors::SupervisorActor supervisor;
  std::vector<std::string> ids;
  std::vector<actors::LocalAgentActor> agents;
  std::vector<std::shared_ptr<adapters::ClusterAdapter>> adapters;
  std::vector<actors::SchedulerActor> schedulers;
  actors::QuotaActor ledger;  // null: no quotas
  WorkloadClientActor client;
  caf::scoped_actor watcher;  // told when an agent dies, to start it again

  void stop() {
    for (const actors::LocalAgentActor& agent : agents) {
      watcher->demonitor(agent.address());
      caf::anon_send_exit(agent, caf::exit_reason::user_shutdown);
    }
    for (const actors::SchedulerActor& scheduler : schedulers) {
      caf::anon_send_exit(scheduler, caf::exit_reason::user_shutdown);
    }
    caf::anon_send_exit(client, caf::exit_reason::user_shutdown);
    if (ledger) {
      caf::anon_send_exit(ledger, caf::exit_reason::user_shutdown);
    }
    caf::anon_send_exit(supervisor, caf::exit_reason::user_shutdown);
  }
};

/// Registers `agent` for cluster `id` with the supervisor.
void register_agent(Fleet& fleet, const std::string& id, const actors::AgentActor& agent) {
  fleet.watcher->request(fleet.supervisor, fleet.waits.registration, register_atom_v, id, agent)
      .receive([](actors::ClusterActor&) {},
               [&](caf::error& error) {
                 spdlog::error("cluster {}: not registered: {}", id, to_string(error));
               });
}

/// An agent runs beside its cluster: when one dies, a new run of it (a new epoch) starts over
/// the same cluster and registers again.
void restart_dead_agents(caf::actor_system& system, Fleet& fleet,
                         const actors::AgentSettings& settings) {
  bool idle = false;
  while (!idle) {
    fleet.watcher->receive(
        [&](caf::down_msg& down) {
          const auto dead = std::find(fleet.agents.begin(), fleet.agents.end(), down.source);
          if (dead == fleet.agents.end()) {
            return;
          }
          const size_t i = static_cast<size_t>(dead - fleet.agents.begin());
          spdlog::warn("agent {} exited ({}); starting it again", fleet.ids[i],
                       to_string(down.reason));
          const auto epoch =
              static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
          fleet.agents[i] = actors::spawn_agent_actor(system, fleet.adapters[i], epoch, settings);
          fleet.watcher->monitor(fleet.agents[i]);
          caf::anon_send(fleet.client, bind_atom_v, fleet.ids[i],
                         actors::AgentActor{fleet.agents[i]});
          register_agent(fleet, fleet.ids[i], fleet.agents[i]);
        },
        caf::after(std::chrono::milliseconds(0)) >> [&] { idle = true; });
  }
}

/// The agent's snapshot, pulled part by part; nullopt when it does not answer.
std::optional<model::ViewSnapshot> pull_snapshot(caf::scoped_actor& self,
                                                 const actors::LocalAgentActor& agent,
                                                 std::chrono::milliseconds wait) {
  messages::AgentSnapshotAssembler parts;
  v1::SnapshotRequest request;
  std::optional<model::ViewSnapshot> whole;
  for (bool asking = true; asking;) {
    asking = false;
    self->request(agent, wait, request)
        .receive(
            [&](messages::AgentSnapshot& part) {
              auto taken = parts.add(std::move(part));
              if (taken && !taken.value()) {
                request = parts.next_request();
                asking = true;
              } else if (taken) {
                whole = std::move(*taken.value());
              }
            },
            [&](caf::error&) {});
  }
  return whole;
}

/// Nodes whose cluster (as its agent last reported it) holds more than they can.
uint64_t count_overcommits(caf::scoped_actor& self,
                           const std::vector<actors::LocalAgentActor>& agents,
                           std::chrono::milliseconds wait) {
  uint64_t overcommits = 0;
  for (const actors::LocalAgentActor& agent : agents) {
    const auto snapshot = pull_snapshot(self, agent, wait);
    if (!snapshot) {
      continue;
    }
    for (const auto& node : snapshot->nodes) {
      // The same rule every update from an agent is held to.
      const auto problem = model::check_node(*node);
      overcommits += problem && (problem->error == model::ViewError::OverAllocated ||
                                 problem->error == model::ViewError::InvalidDevice);
    }
  }
  return overcommits;
}

/// Adds `summary` into `total`: every counter (a uint64), by reflection so that a counter added
/// later is summed too, and the latency histogram bucket by bucket.
void add_summary(v1::SchedulerSummary& total, const v1::SchedulerSummary& summary) {
  const auto* reflection = summary.GetReflection();
  const auto* descriptor = summary.GetDescriptor();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const auto* field = descriptor->field(i);
    if (!field->is_repeated() &&
        field->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_UINT64) {
      reflection->SetUInt64(
          &total, field,
          reflection->GetUInt64(total, field) + reflection->GetUInt64(summary, field));
    }
  }
  auto& buckets = *total.mutable_decision_latency_buckets();
  buckets.Resize(std::max(buckets.size(), summary.decision_latency_buckets_size()), 0);
  for (int i = 0; i < summary.decision_latency_buckets_size(); ++i) {
    buckets[i] += summary.decision_latency_buckets(i);
  }
  total.set_decision_latency_seconds_sum(total.decision_latency_seconds_sum() +
                                         summary.decision_latency_seconds_sum());
}

v1::SchedulerSummary sum_schedulers(caf::scoped_actor& self,
                                    const std::vector<actors::SchedulerActor>& schedulers,
                                    std::chrono::milliseconds wait) {
  v1::SchedulerSummary total;
  for (const actors::SchedulerActor& scheduler : schedulers) {
    self->request(scheduler, wait, summary_atom_v)
        .receive([&](v1::SchedulerSummary& s) { add_summary(total, s); }, [&](caf::error&) {});
  }
  return total;
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

namespace {

/// An agent per cluster (the simulated ones, then the real ones), each run with a fresh epoch
/// (so a restart is never taken for a gap).
void start_agents(caf::actor_system& system,
                  const std::vector<model::ClusterResourceProfile>& clusters,
                  const RunOptions& options, Fleet& fleet) {
  std::vector<std::shared_ptr<adapters::ClusterAdapter>> all;
  for (size_t i = 0; i < clusters.size(); ++i) {
    adapters::SimulationOptions simulation = options.simulation;
    simulation.seed = options.seed + i;
    simulation.node_count = options.nodes_per_cluster;
    all.push_back(std::make_shared<adapters::SimulatedCluster>(clusters[i], simulation));
  }
  all.insert(all.end(), options.real_clusters.begin(), options.real_clusters.end());
  const auto epoch_base =
      static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
  for (size_t i = 0; i < all.size(); ++i) {
    const std::string id = all[i]->profile().spec.cluster_id;
    const auto agent = actors::spawn_agent_actor(system, all[i], epoch_base + i, options.agent);
    fleet.watcher->monitor(agent);
    fleet.adapters.push_back(all[i]);
    register_agent(fleet, id, agent);
    fleet.ids.push_back(id);
    fleet.agents.push_back(agent);
  }
}

/// Schedulers racing on the same clusters, and the workload client that feeds them; false
/// (with the problem in `report`) when the policy cannot be made.
bool start_schedulers(caf::actor_system& system, const RunOptions& options, Fleet& fleet,
                      RunReport& report) {
  // One policy per scheduler: a policy with observers (FGD's arrivals) is one scheduler's.
  const auto make_policy = [&](std::string& error) {
    auto policy = options.scorers.empty()
                      ? policy::Registry::builtin().preset(options.policy, error)
                      : policy::Registry::builtin().make_policy("custom", options.scorers, error);
    if (policy) {
      policy::set_node_sample(*policy, options.node_sample);
    }
    return policy;
  };
  std::vector<policy::ClusterInfo> infos;
  for (const auto& adapter : fleet.adapters) {
    const model::ClusterProfileSpec& spec = adapter->profile().spec;
    infos.push_back({spec.cluster_id, spec.topology.region, spec.topology.zone, spec.machine_type,
                     false, !adapter->takes_placements()});
  }
  for (int i = 0; i < std::max(options.schedulers, 1); ++i) {
    std::string policy_error;
    const auto policy = make_policy(policy_error);
    if (!policy) {
      report.problems.push_back(policy_error);
      return false;
    }
    fleet.schedulers.push_back(actors::spawn_scheduler_actor(
        system, fleet.supervisor, infos, *policy, options.scheduling, fleet.ledger));
  }
  fleet.client = spawn_workload_client(system, fleet.schedulers, fleet.waits);
  for (size_t i = 0; i < fleet.ids.size(); ++i) {
    caf::anon_send(fleet.client, bind_atom_v, fleet.ids[i], actors::AgentActor{fleet.agents[i]});
  }
  return true;
}

/// The quota ledger, with the run's quotas in force and told of finished work by every
/// ClusterActor; none without quotas.
void start_ledger(caf::actor_system& system, const RunOptions& options, Fleet& fleet,
                  RunReport& report) {
  if (options.quotas.empty()) {
    return;
  }
  fleet.ledger = actors::spawn_quota_actor(system);
  for (const v1::QuotaDefinition& definition : options.quotas) {
    fleet.watcher->request(fleet.ledger, fleet.waits.answer, definition)
        .receive(
            [](v1::QuotaStatus&) {},
            [&](caf::error& error) {
              report.problems.push_back("quota " + definition.name() + ": " + to_string(error));
            });
  }
  caf::anon_send(fleet.supervisor, bind_atom_v, actors::PlacementListenerActor{fleet.ledger});
}

/// Cuts agents off and lets them back as the --partition windows say, at `now`.
void apply_partitions(const RunOptions& options, std::chrono::milliseconds now, Fleet& fleet,
                      std::vector<bool>& cut_off) {
  for (size_t p = 0; p < options.partitions.size(); ++p) {
    const Partition& partition = options.partitions[p];
    const bool should_be_cut = now >= partition.start && now < partition.start + partition.length;
    const auto at = std::find(fleet.ids.begin(), fleet.ids.end(), partition.cluster_id);
    if (should_be_cut != cut_off[p] && at != fleet.ids.end()) {
      caf::anon_send(fleet.agents[static_cast<size_t>(at - fleet.ids.begin())], online_atom_v,
                     !should_be_cut);
      cut_off[p] = should_be_cut;
    }
  }
}

/// How the run stands: the clusters, and the workload as its client and the schedulers count it.
class ProgressCounter {
 public:
  RunProgress take(caf::actor_system& system, Fleet& fleet, std::chrono::milliseconds now) {
    RunProgress progress;
    progress.elapsed = now;
    progress.clusters = query_summaries(system, fleet.supervisor, fleet.ids, nullptr, fleet.waits);
    fleet.watcher->request(fleet.client, fleet.waits.progress, summary_atom_v)
        .receive([&](v1::WorkloadReport& report) { progress.workload = std::move(report); },
                 [](caf::error&) {});
    if (progress.workload) {
      const double seconds = std::chrono::duration<double>(now - last_at_).count();
      const uint64_t decided = progress.workload->decided();
      progress.decisions_per_second =
          seconds > 0 ? static_cast<double>(decided - last_decided_) / seconds : 0;
      last_decided_ = decided;
      last_at_ = now;
    }
    return progress;
  }

 private:
  uint64_t last_decided_ = 0;
  std::chrono::milliseconds last_at_{0};
};

/// What the run ends with: the clusters, the workload, the schedulers, over-commits.
void collect_report(caf::actor_system& system, Fleet& fleet, RunReport& report) {
  report.clusters =
      query_summaries(system, fleet.supervisor, fleet.ids, &report.problems, fleet.waits);
  fleet.watcher->request(fleet.client, fleet.waits.closing_report, summary_atom_v)
      .receive(
          [&](v1::WorkloadReport& workload_report) { report.workload = workload_report; },
          [&](caf::error& error) { report.problems.push_back("workload: " + to_string(error)); });
  report.scheduling = sum_schedulers(fleet.watcher, fleet.schedulers, fleet.waits.answer);
  report.overcommits = count_overcommits(fleet.watcher, fleet.agents, fleet.waits.answer);
  if (fleet.ledger) {
    fleet.watcher->request(fleet.ledger, fleet.waits.answer, quotas_atom_v)
        .receive(
            [&](v1::QuotaList& list) { report.quotas = std::move(list); },
            [&](caf::error& error) { report.problems.push_back("quotas: " + to_string(error)); });
  }
  for (const auto& summary : report.clusters) {
    report.deltas_applied += summary.deltas_applied();
  }
}

}  // namespace

RunReport run_single_node(const std::vector<model::ClusterResourceProfile>& clusters,
                          const RunOptions& options,
                          const std::function<void(const RunProgress&)>& progress) {
  caf::actor_system_config config;
  actors::configure_actor_system(config);
  caf::actor_system system{config};
  Fleet fleet(system, options.waits);
  fleet.supervisor = actors::spawn_supervisor(system, options.supervisor);
  RunReport report;
  start_ledger(system, options, fleet, report);
  start_agents(system, clusters, options, fleet);
  if (!start_schedulers(system, options, fleet, report)) {
    fleet.stop();
    return report;
  }
  std::function<void()> close_door;
  if (options.open_door) {
    close_door = options.open_door(system, fleet.supervisor, fleet.schedulers);
  }
  WorkloadGenerator workload(default_workload(), options.seed, options.requests_per_second,
                             options.mean_runtime);
  spdlog::info("started {} simulated clusters and {} schedulers ({} policy); running for {} ms",
               clusters.size(), fleet.schedulers.size(), options.policy, options.duration.count());
  // The workload starts once the supervisor has found the clusters healthy, or when it has
  // waited long enough: a run may start with a cluster cut off on purpose.
  wait_until_healthy(system, fleet.supervisor, fleet.ids, fleet.waits);
  const auto start = Clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  };
  std::vector<bool> cut_off(options.partitions.size(), false);
  auto next_progress = options.progress_interval;
  ProgressCounter counter;
  auto last_arrivals = std::chrono::milliseconds(0);
  size_t arrivals = 0;
  while (elapsed() < options.duration) {
    std::this_thread::sleep_for(std::min(kArrivalTick, options.duration - elapsed()));
    const auto now = elapsed();
    for (const Arrival& arrival : workload.next(now - last_arrivals)) {
      model::SchedulingRequestSpec spec = arrival.shape->spec;
      if (!options.quotas.empty()) {
        spec.queue = options.quotas[arrivals++ % options.quotas.size()].queue();
      }
      caf::anon_send(fleet.client, submit_atom_v, arrival.request_id, std::move(spec),
                     static_cast<int64_t>(arrival.runs_for.count()));
    }
    last_arrivals = now;
    apply_partitions(options, now, fleet, cut_off);
    restart_dead_agents(system, fleet, options.agent);
    if (now >= next_progress) {
      progress(counter.take(system, fleet, now));
      next_progress += options.progress_interval;
    }
  }
  report.elapsed = elapsed();
  collect_report(system, fleet, report);
  if (close_door) {
    close_door();
  }
  fleet.stop();
  return report;
}

}  // namespace unisched::runtime
