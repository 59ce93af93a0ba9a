// The scheduling plane with real actors on a virtual clock (tests/deterministic_system.hpp): a
// supervisor probing often, one agent per quiet simulated cluster (no background churn: the
// tests own every allocation), schedulers racing on them with the binpack preset, and, when
// asked for, a quota ledger told of finished work. Ready once every cluster is healthy.
#pragma once

#include <caf/send.hpp>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "actors/agent_actor.hpp"
#include "actors/quota_actor.hpp"
#include "actors/scheduler_actor.hpp"
#include "actors/supervisor.hpp"
#include "tests/deterministic_system.hpp"
#include "tests/simulation_fixtures.hpp"

namespace unisched::testing {

struct SchedulingFleet {
  struct Options {
    int schedulers = 1;
    actors::CommitMode mode = actors::CommitMode::ClusterRevision;
    bool quotas = false;  ///< a ledger the schedulers take budget from
    std::function<void(const actors::QuotaLedgerEvent&)> quota_observer;
  };

  DeterministicSystem harness;
  actors::SupervisorActor supervisor;
  actors::QuotaActor ledger;  // null without quotas
  std::map<std::string, actors::LocalAgentActor> agents;
  std::vector<actors::SchedulerActor> schedulers;

  SchedulingFleet(const std::vector<std::string>& ids, const Options& options) {
    actors::SupervisorSettings supervision;
    supervision.probe_interval = std::chrono::milliseconds(50);
    supervision.probe_timeout = std::chrono::milliseconds(150);
    supervisor = actors::spawn_supervisor(*harness.system, supervision);
    if (options.quotas) {
      ledger = actors::spawn_quota_actor(*harness.system, {options.quota_observer});
      caf::anon_send(supervisor, atoms::bind_atom_v, actors::PlacementListenerActor{ledger});
    }
    std::vector<policy::ClusterInfo> infos = start_agents(ids);
    std::string error;
    const auto policy = *policy::Registry::builtin().preset("binpack", error);
    actors::SchedulerSettings settings;
    settings.commit_mode = options.mode;
    settings.max_retries = 20;
    for (int i = 0; i < options.schedulers; ++i) {
      schedulers.push_back(actors::spawn_scheduler_actor(*harness.system, supervisor, infos, policy,
                                                         settings, ledger));
    }
    for (const std::string& id : ids) {
      harness.run_until(
          [&] {
            const auto summary =
                harness.try_ask<v1::ClusterSummary>(supervisor, atoms::summary_atom_v, id);
            return summary && summary->healthy();
          },
          id + " healthy");
    }
  }
  ~SchedulingFleet() {
    for (const auto& actor : schedulers) {
      caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
    }
    for (const auto& [id, agent] : agents) {
      caf::anon_send_exit(agent, caf::exit_reason::user_shutdown);
    }
    if (ledger) {
      caf::anon_send_exit(ledger, caf::exit_reason::user_shutdown);
    }
    caf::anon_send_exit(supervisor, caf::exit_reason::user_shutdown);
  }
  SchedulingFleet(const SchedulingFleet&) = delete;
  SchedulingFleet& operator=(const SchedulingFleet&) = delete;

 private:
  /// An agent per cluster, registered with the supervisor; the clusters as schedulers see them.
  std::vector<policy::ClusterInfo> start_agents(const std::vector<std::string>& ids) {
    actors::AgentSettings agent_settings;
    agent_settings.observe_interval = std::chrono::milliseconds(5);
    agent_settings.push_interval = std::chrono::milliseconds(10);
    std::vector<policy::ClusterInfo> infos;
    uint64_t seed = 1;
    for (const std::string& id : ids) {
      adapters::SimulationOptions quiet;
      quiet.seed = seed++;
      quiet.membership_events_per_second = 0;
      quiet.pod_events_per_second = 0;
      agents[id] = actors::spawn_agent_actor(
          *harness.system, std::make_shared<adapters::SimulatedCluster>(small_profile(id), quiet),
          seed, agent_settings);
      harness.ask<actors::ClusterActor>(supervisor, atoms::register_atom_v, id,
                                        actors::AgentActor{agents[id]});
      infos.push_back({id, "r1", "z1", model::MachineType::VirtualMachine, false});
    }
    return infos;
  }
};

}  // namespace unisched::testing
