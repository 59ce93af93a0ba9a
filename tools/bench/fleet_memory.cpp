#include "tools/bench/fleet_memory.hpp"

#include <cstdio>
#include <memory>
#include <vector>

#include "adapters/simulated_cluster.hpp"
#include "cores/agent_core.hpp"
#include "cores/cluster_core.hpp"
#include "cores/scheduler_core.hpp"
#include "policy/framework.hpp"
#include "tools/bench/fixtures.hpp"
#include "tools/bench/heap.hpp"
#include "tools/bench/json_line.hpp"

namespace unisched::bench {
namespace {

/// Heap in use once the allocator has handed back what it can.
int64_t heap_now() {
  release_free_heap();
  return heap_bytes_in_use();
}

struct Fleet {
  std::vector<model::ClusterResourceProfile> profiles;
  std::vector<std::shared_ptr<adapters::SimulatedCluster>> simulations;
  std::vector<std::unique_ptr<actors::AgentCore>> agents;
  std::vector<std::unique_ptr<actors::ClusterCore>> centre;
  std::vector<std::unique_ptr<actors::SchedulerCore>> schedulers;
};

std::string plan(const FleetMemoryParameters& parameters, Fleet& fleet) {
  std::string problem;
  fleet.profiles = run_clusters(parameters.profiles, parameters.clusters, problem);
  return problem;
}

/// Every agent's next update into its ClusterCore, and the changes on to every scheduler.
std::string push_updates(Fleet& fleet) {
  for (size_t i = 0; i < fleet.agents.size(); ++i) {
    fleet.agents[i]->observe();
    auto update = fleet.agents[i]->next_update();
    if (!update) {
      continue;
    }
    const uint64_t before = fleet.centre[i]->revision();
    const auto outcome = fleet.centre[i]->on_update(std::move(*update));
    if (outcome.status != actors::AckStatus::Applied) {
      return fleet.profiles[i].spec.cluster_id + ": update not applied: " + outcome.error;
    }
    const auto changes = fleet.centre[i]->published().changes_since(before);
    for (const auto& scheduler : fleet.schedulers) {
      for (const auto& change : changes.value_or(decltype(changes)::value_type{})) {
        scheduler->views().apply_feed(*change);
      }
    }
  }
  return {};
}

}  // namespace

FleetMemoryResult fleet_memory(const FleetMemoryParameters& parameters) {
  FleetMemoryResult result;
  Fleet fleet;
  if (result.problem = plan(parameters, fleet); !result.problem.empty()) {
    return result;
  }
  int64_t mark = heap_now();
  const auto take = [&](int64_t& into) {
    const int64_t now = heap_now();
    into = now - mark;
    mark = now;
  };
  for (size_t i = 0; i < fleet.profiles.size(); ++i) {
    adapters::SimulationOptions options;
    options.seed = 1 + i;
    options.node_count = parameters.nodes;
    fleet.simulations.push_back(
        std::make_shared<adapters::SimulatedCluster>(fleet.profiles[i], options));
  }
  take(result.simulation);
  for (size_t i = 0; i < fleet.profiles.size(); ++i) {
    fleet.agents.push_back(std::make_unique<actors::AgentCore>(fleet.simulations[i], 1 + i));
    fleet.centre.push_back(
        std::make_unique<actors::ClusterCore>(fleet.profiles[i].spec.cluster_id));
  }
  // The first update lists every node; the agent keeps a copy, the centre applies it.
  std::vector<model::ViewUpdate> listings;
  for (const auto& agent : fleet.agents) {
    agent->observe();
    listings.push_back(agent->next_update().value_or(model::ViewUpdate{}));
  }
  const int64_t with_listings = heap_now();
  const int64_t listing_bytes = [&] {
    const std::vector<model::ViewUpdate> copy = listings;
    return heap_now() - with_listings;
  }();
  result.agents = with_listings - mark - listing_bytes;
  mark = with_listings - listing_bytes;
  for (size_t i = 0; i < listings.size(); ++i) {
    fleet.centre[i]->on_update(std::move(listings[i]));
    result.nodes += fleet.centre[i]->view().size();
  }
  listings.clear();
  listings.shrink_to_fit();
  take(result.centre);
  const auto policy = policy::Registry::builtin().preset("balanced", result.problem);
  for (int s = 0; s < parameters.schedulers && policy; ++s) {
    fleet.schedulers.push_back(
        std::make_unique<actors::SchedulerCore>(*policy, actors::SchedulerSettings{}));
    for (const auto& centre : fleet.centre) {
      fleet.schedulers.back()->views().add(
          {centre->cluster_id(), "", "", model::MachineType::VirtualMachine, true, false});
      fleet.schedulers.back()->views().replace(*centre->published().whole());
    }
  }
  take(result.schedulers);
  for (int step = 0; step < 100 && result.problem.empty(); ++step) {  // 10 s at 100 ms steps
    result.problem = push_updates(fleet);
  }
  take(result.churn);
  return result;
}

bool run_fleet_memory(const Flags& flags, const std::string&) {
  FleetMemoryParameters parameters;
  parameters.clusters = flags.number("clusters", parameters.clusters);
  parameters.nodes = flags.number("nodes", parameters.nodes);
  parameters.schedulers = flags.number("schedulers", parameters.schedulers);
  parameters.profiles = flags.text("profiles", UNISCHED_SOURCE_DIR "/config/profiles");
  std::fprintf(stderr, "fleet-memory: %d clusters x %d nodes, %d schedulers\n", parameters.clusters,
               parameters.nodes, parameters.schedulers);
  const FleetMemoryResult result = fleet_memory(parameters);
  const double nodes = static_cast<double>(std::max<uint64_t>(result.nodes, 1));
  const auto per_node = [&](int64_t bytes) { return static_cast<double>(bytes) / nodes; };
  const int64_t runtime = result.agents + result.centre + result.schedulers + result.churn;
  JsonLine("fleet-memory")
      .integer("clusters", parameters.clusters)
      .integer("nodes", static_cast<int64_t>(result.nodes))
      .integer("schedulers", parameters.schedulers)
      .number("simulation_bytes_per_node", per_node(result.simulation))
      .number("agent_bytes_per_node", per_node(result.agents))
      .number("centre_bytes_per_node", per_node(result.centre))
      .number("scheduler_bytes_per_node", per_node(result.schedulers))
      .number("churn_bytes_per_node", per_node(result.churn))
      .number("runtime_bytes_per_node", per_node(runtime))
      .flag("ok", result.problem.empty())
      .print();
  std::fprintf(stderr,
               "  per node: simulation %.0f B; agents %.0f B, centre %.0f B, %d schedulers %.0f "
               "B, churn %.0f B: %.0f B of runtime\n",
               per_node(result.simulation), per_node(result.agents), per_node(result.centre),
               parameters.schedulers, per_node(result.schedulers), per_node(result.churn),
               per_node(runtime));
  if (!result.problem.empty()) {
    std::fprintf(stderr, "problem: %s\n", result.problem.c_str());
  }
  return result.problem.empty();
}

}  // namespace unisched::bench
