#include "simulation/simulated_system.hpp"

#include <absl/strings/str_cat.h>
#include <caf/event_based_actor.hpp>
#include <caf/send.hpp>

#include "actors/actor_types.hpp"
#include "actors/scheduler_actor.hpp"
#include "actors/supervisor.hpp"
#include "model/krm_common.hpp"
#include "policy/framework.hpp"
#include "runtime/hub.hpp"
#include "runtime/request_book.hpp"

namespace unisched::simulation {

using namespace unisched::atoms;

namespace {

std::string cluster_name(size_t index) {
  return absl::StrCat("sim-", std::string(1, 'a' + index));
}

}  // namespace

SimulatedSystem::SimulatedSystem(const RunSettings& settings, const std::string& journal,
                                 RunReport& report)
    : settings_(settings), journal_(journal), report_(report) {
  actors::configure_actor_system(config_);
  config_.set("scheduler.policy", caf::atom("testing"));
  system_ = std::make_unique<caf::actor_system>(config_);
  coordinator_ = &dynamic_cast<caf::scheduler::test_coordinator&>(system_->scheduler());
  network_ = std::make_unique<FaultNetwork>(
      *system_, settings.seed * 0x9E3779B97F4A7C15ull + 1, settings.faults, FaultRates{},
      report_.faults,
      [this](ActorKind kind, const caf::message& content) { watch_delivery(kind, content); });
  const auto now_ms = [this] { return report_.virtual_ms; };
  for (size_t i = 0; i < static_cast<size_t>(settings.clusters); ++i) {
    adapters::SimulationOptions quiet;  // no background churn: the observer sees every use
    quiet.seed = settings.seed * 31 + i;
    quiet.membership_events_per_second = 0;
    quiet.pod_events_per_second = 0;
    auto inner =
        std::make_unique<adapters::SimulatedCluster>(simulation_profile(cluster_name(i)), quiet);
    agents_.push_back({cluster_name(i),
                       std::make_shared<ObservedCluster>(std::move(inner), observer_, now_ms,
                                                         settings.seed * 131 + i, 300, 1500),
                       {},
                       0});
  }
}

SimulatedSystem::~SimulatedSystem() {
  for (AgentSlot& slot : agents_) {
    if (slot.actor) {
      caf::anon_send_exit(slot.actor, caf::exit_reason::user_shutdown);
    }
  }
  crash_centre();
  coordinator_->run();
  coordinator_->trigger_timeouts();
  coordinator_->run();
  network_.reset();
  system_.reset();
}

void SimulatedSystem::step(std::chrono::milliseconds step) {
  coordinator_->advance_time(step);
  coordinator_->run();
  network_->release_due();
  coordinator_->run();
  observer_.set_time(report_.virtual_ms += step.count());
}

void SimulatedSystem::start() {
  start_centre();
  for (size_t i = 0; i < agents_.size(); ++i) {
    start_agent(i);
  }
}

void SimulatedSystem::start_agent(size_t cluster) {
  AgentSlot& slot = agents_[cluster];
  actors::AgentSettings settings;
  settings.observe_interval = std::chrono::milliseconds(20);
  settings.push_interval = std::chrono::milliseconds(50);
  settings.push_timeout = std::chrono::milliseconds(500);
  slot.actor = actors::spawn_agent_actor(*system_, slot.adapter, ++slot.epoch, settings);
  register_agent(cluster);
}

/// What an agent's hub link does when it connects: registers the cluster at the hub.
void SimulatedSystem::register_agent(size_t cluster) {
  const AgentSlot& slot = agents_[cluster];
  if (!centre_ || !slot.actor) {
    return;
  }
  const auto& spec = slot.adapter->profile().spec;
  v1::ClusterRegistration registration;
  registration.mutable_identity()->set_cluster_id(slot.cluster_id);
  registration.set_region(spec.topology.region);
  registration.set_zone(spec.topology.zone);
  registration.set_machine_type(
      std::string(model::spelling(model::kMachineTypes, spec.machine_type)));
  const auto agent = network_->wrap(actors::AgentActor{slot.actor}, ActorKind::Agent);
  caf::anon_send(centre_->hub, register_atom_v, registration, agent);
}

void SimulatedSystem::crash_agent(size_t cluster) {
  AgentSlot& slot = agents_[cluster];
  if (slot.actor) {
    caf::anon_send_exit(slot.actor, caf::exit_reason::kill);
    slot.actor = nullptr;
    coordinator_->run();
  }
}

void SimulatedSystem::cut_off(size_t cluster) {
  if (agents_[cluster].actor) {
    network_->cut_off(caf::actor_cast<caf::strong_actor_ptr>(agents_[cluster].actor));
    cut_off_.insert(cluster);
  }
}

void SimulatedSystem::heal_all() {
  network_->heal_all();
  for (size_t cluster : cut_off_) {
    register_agent(cluster);
  }
  cut_off_.clear();
  coordinator_->run();
}

std::optional<actors::ClusterActor> SimulatedSystem::cluster_actor(size_t cluster) {
  if (!centre_) {
    return std::nullopt;
  }
  return ask<actors::ClusterActor>(centre_->supervisor, clusters_atom_v,
                                   agents_[cluster].cluster_id);
}

std::optional<v1::ClusterSnapshot> SimulatedSystem::agent_truth(size_t cluster) {
  const auto snapshot = ask<messages::AgentSnapshot>(actors::AgentActor{agents_[cluster].actor},
                                                     v1::SnapshotRequest{});
  if (!snapshot) {
    return std::nullopt;
  }
  return messages::to_proto(*snapshot);
}

void SimulatedSystem::crash_cluster_actor(size_t cluster) {
  if (const auto actor = cluster_actor(cluster)) {
    caf::anon_send_exit(*actor, caf::exit_reason::kill);
    coordinator_->run();
  }
}

bool SimulatedSystem::crash_scheduler(size_t index) {
  if (!centre_ || centre_->schedulers.size() < 2) {
    return false;
  }
  const size_t victim = index % centre_->schedulers.size();
  caf::anon_send_exit(centre_->schedulers[victim], caf::exit_reason::kill);
  centre_->schedulers.erase(centre_->schedulers.begin() + static_cast<std::ptrdiff_t>(victim));
  coordinator_->run();
  return true;
}

void SimulatedSystem::crash_centre() {
  if (!centre_) {
    return;
  }
  caf::anon_send_exit(centre_->hub, caf::exit_reason::kill);
  for (const auto& scheduler : centre_->schedulers) {
    caf::anon_send_exit(scheduler, caf::exit_reason::kill);
  }
  caf::anon_send_exit(centre_->supervisor, caf::exit_reason::kill);
  centre_.reset();
  coordinator_->run();
}

/// The centre as `unisched serve --journal` starts it: the requests recovered from the journal
/// (those undecided at a crash are decided again), then every agent registers again.
void SimulatedSystem::start_centre() {
  actors::SupervisorSettings supervision;
  supervision.probe_interval = std::chrono::milliseconds(100);
  supervision.probe_timeout = std::chrono::milliseconds(300);
  supervision.resync_timeout = std::chrono::milliseconds(2000);
  Centre centre;
  centre.supervisor = actors::spawn_supervisor(*system_, supervision);
  const auto directory = network_->wrap(centre.supervisor, ActorKind::Supervisor);
  std::string error;
  const auto policy = *policy::Registry::builtin().preset("binpack", error);
  actors::SchedulerSettings scheduling;
  scheduling.draw_seed = settings_.seed + 1;
  scheduling.max_retries = 10;
  // Both commit checks, on alternate seeds: node-level commits compare per-node revisions,
  // which resyncs and restarts must rebuild as carefully as the view.
  scheduling.commit_mode = settings_.seed % 2 == 1 ? actors::CommitMode::NodeRevisions
                                                   : actors::CommitMode::ClusterRevision;
  scheduling.commit_timeout = std::chrono::milliseconds(1000);
  scheduling.max_in_flight = static_cast<size_t>(settings_.in_flight);
  for (int i = 0; i < settings_.schedulers; ++i) {
    centre.schedulers.push_back(
        actors::spawn_scheduler_actor(*system_, directory, {}, policy, scheduling));
    network_->proxy_of(caf::actor_cast<caf::strong_actor_ptr>(centre.schedulers.back()),
                       ActorKind::Scheduler);
  }
  auto book = std::make_shared<runtime::RequestBook>(journal_);
  std::vector<std::string> warnings;
  if (const absl::Status status = book->recover(false, warnings); !status.ok()) {
    observer_.violation(absl::StrCat("the hub's journal does not recover: ", status.ToString()));
  }
  runtime::HubSettings hub_settings;
  hub_settings.book = book;
  hub_settings.collect_interval = std::chrono::seconds(1);
  centre.hub = runtime::spawn_hub(*system_, centre.supervisor, centre.schedulers, hub_settings);
  caf::anon_send(centre.supervisor, bind_atom_v, actors::PlacementListenerActor{centre.hub});
  centre_ = std::move(centre);
  coordinator_->run();
  for (size_t i = 0; i < agents_.size(); ++i) {
    register_agent(i);
  }
}

}  // namespace unisched::simulation
