// The system under test, on CAF's deterministic coordinator: agents over observed simulated
// clusters, and the centre (supervisor, schedulers, hub with its journal), wired through the
// fault network. The run (simulation_run.cpp) drives it step by step and injects the faults.
#pragma once

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/scheduler/test_coordinator.hpp>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "actors/agent_actor.hpp"
#include "runtime/hub_interface.hpp"
#include "simulation/fault_network.hpp"
#include "simulation/observed_cluster.hpp"
#include "simulation/simulation_run.hpp"
#include "simulation/workload.hpp"

namespace unisched::simulation {

class SimulatedSystem {
 public:
  SimulatedSystem(const RunSettings& settings, const std::string& journal, RunReport& report);
  ~SimulatedSystem();
  SimulatedSystem(const SimulatedSystem&) = delete;
  SimulatedSystem& operator=(const SimulatedSystem&) = delete;

  void start();
  /// Moves virtual time on by `step`, runs every message, hands on held ones that fell due.
  void step(std::chrono::milliseconds step);
  int64_t now_ms() const { return report_.virtual_ms; }
  void set_faults_on(bool on) { network_->set_faults_on(on); }
  void release_held() { network_->release_due(true); }

  size_t clusters() const { return agents_.size(); }
  const std::string& cluster_id(size_t cluster) const { return agents_[cluster].cluster_id; }
  void crash_agent(size_t cluster);
  void start_agent(size_t cluster);
  bool agent_running(size_t cluster) const { return static_cast<bool>(agents_[cluster].actor); }
  void cut_off(size_t cluster);
  /// Ends every partition; each agent cut off registers again, as its hub link does when its
  /// session comes back.
  void heal_all();
  void crash_cluster_actor(size_t cluster);
  /// False when only one scheduler is left (the hub needs one to place anything).
  bool crash_scheduler(size_t index);
  void crash_centre();
  void start_centre();

  void submit(const std::vector<SimulatedRequest>& batch);

  /// The hub's book; nullopt when it does not answer without time moving.
  std::optional<v1::RequestList> requests();
  /// Whether every cluster's view stands at its agent's version, nothing is held, and no
  /// ClusterActor holds an order its agent has not carried out.
  bool views_caught_up();
  /// Placements running on the clusters whose work ends by itself.
  size_t finite_work_running() const;
  uint64_t deliveries() const { return network_->deliveries(); }
  uint64_t digest() const { return network_->digest(); }
  /// The observer's final checks of views and requests.
  void final_checks();

  Observer& observer() { return observer_; }
  const std::set<std::string>& accepted() const { return accepted_; }

 private:
  struct AgentSlot {
    std::string cluster_id;
    std::shared_ptr<ObservedCluster> adapter;
    actors::LocalAgentActor actor;  // null while crashed
    uint64_t epoch = 0;
  };
  struct Centre {
    actors::SupervisorActor supervisor;
    std::vector<actors::SchedulerActor> schedulers;
    runtime::HubActor hub;
  };

  template <class Reply, class Handle, class... Ts>
  std::optional<Reply> ask(const Handle& target, Ts... xs);
  void register_agent(size_t cluster);
  std::optional<actors::ClusterActor> cluster_actor(size_t cluster);
  /// The cluster's state as its agent holds it (its snapshot, in the schema's form).
  std::optional<v1::ClusterSnapshot> agent_truth(size_t cluster);
  void watch_delivery(ActorKind kind, const caf::message& content);

  const RunSettings settings_;
  const std::string journal_;
  RunReport& report_;
  caf::actor_system_config config_;
  std::unique_ptr<caf::actor_system> system_;
  caf::scheduler::test_coordinator* coordinator_ = nullptr;
  Observer observer_;
  std::unique_ptr<FaultNetwork> network_;
  std::vector<AgentSlot> agents_;
  std::optional<Centre> centre_;
  std::set<std::string> accepted_;
  std::set<size_t> cut_off_;             // clusters whose agent is partitioned away
  std::map<std::string, int> replicas_;  // of every request submitted
  std::set<std::string> gangs_;
  uint64_t submissions_ = 0;
  uint64_t centre_starts_ = 0;
};

/// Asks `target` from a helper actor and runs until the answer is in; nullopt when none comes
/// without time moving.
template <class Reply, class Handle, class... Ts>
std::optional<Reply> SimulatedSystem::ask(const Handle& target, Ts... xs) {
  auto reply = std::make_shared<std::optional<Reply>>();
  system_->spawn([=](caf::event_based_actor* self) {
    self->request(target, std::chrono::seconds(10), xs...)
        .then([=](Reply& answer) { *reply = std::move(answer); }, [](caf::error&) {});
  });
  coordinator_->run();
  return *reply;
}

}  // namespace unisched::simulation
