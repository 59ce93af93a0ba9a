#include <boost/test/unit_test.hpp>

#include <random>
#include <set>

#include "policy/fleet_position.hpp"
#include "policy/node_fit.hpp"
#include "policy/pipeline.hpp"
#include "policy/plugins/fgd.hpp"
#include "policy/plugins/filters.hpp"
#include "policy/plugins/scorers.hpp"
#include "tests/policy_fixtures.hpp"

using namespace unisched;
using namespace unisched::policy;
using testing::node;
using testing::request;

namespace {

Policy preset(const std::string& name) {
  std::string error;
  auto policy = Registry::builtin().preset(name, error);
  BOOST_TEST_REQUIRE(policy.has_value(), error);
  return *policy;
}

size_t placed_in(const Decision& decision, const std::string& cluster) {
  return static_cast<size_t>(std::count_if(decision.placements.begin(), decision.placements.end(),
                                           [&](const auto& p) { return p.cluster == cluster; }));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(policy_plugins)

BOOST_AUTO_TEST_CASE(each_filter_says_why) {
  testing::Fleet fleet;
  auto& view = fleet.add("west", "us-west", {node("w1", 4000, 16)});
  model::ClusterResources resources;
  resources.latency_max_ns = 2'000'000;
  resources.storage = {{"ssd", int64_t{1} << 40, int64_t{1} << 39}};
  view.set_resources(resources);
  fleet.add("sick", "us-west", {node("s1", 4000, 16)}, false);
  fleet.add("seen", "us-west", {node("v1", 4000, 16)});
  fleet.infos.back().view_only = true;
  fleet.add("pair", "us-west", {node("p1", 4000, 16, 1), node("p2", 4000, 16, 1)});
  const ClusterCandidate& west = fleet.candidates[0];
  const ClusterCandidate& sick = fleet.candidates[1];
  const ClusterCandidate& seen = fleet.candidates[2];
  const ClusterCandidate& pair = fleet.candidates[3];
  struct Case {
    std::shared_ptr<const ClusterFilter> filter;
    std::string spec;
    const ClusterCandidate* cluster;
    std::string reason;  // empty: passes
  };
  const std::string base = "  resources:\n    cpu: 1\n";
  const Case cases[] = {
      {plugins::make_health_filter(), base, &sick, "cluster is not healthy"},
      {plugins::make_health_filter(), base, &west, ""},
      {plugins::make_view_only_filter(), base, &seen,
       "cluster is a view only: it joined through the seed's ClusterMetadataService, which "
       "carries no placement orders to its agent"},
      {plugins::make_view_only_filter(), base, &west, ""},
      {plugins::make_affinity_filter(), base + "  placement:\n    affinity:\n      regions: [eu]\n",
       &west, "region \"us-west\" is not among the required ones"},
      {plugins::make_affinity_filter(),
       base + "  placement:\n    antiAffinity:\n      clusters: [west]\n", &west,
       "cluster \"west\" is excluded by anti-affinity"},
      {plugins::make_affinity_filter(),
       base + "  placement:\n    affinity:\n      zones: [us-west-a]\n", &west, ""},
      {plugins::make_latency_filter(), base + "  placement:\n    maxLatency: \"<=1ms\"\n", &west,
       "network latency up to 2000000ns exceeds <=1ms"},
      {plugins::make_latency_filter(), base + "  placement:\n    maxLatency: 2ms\n", &west, ""},
      {plugins::make_latency_filter(), base + "  placement:\n    maxLatency: 2ms\n", &sick,
       "network latency unknown, request needs 2ms"},
      {plugins::make_storage_filter(),
       base + "  placement:\n    storage:\n      class: ssd\n      capacity: 600Gi\n", &west,
       "storage class \"ssd\" has 549755813888 bytes free, 644245094400 needed"},
      {plugins::make_storage_filter(), base + "  placement:\n    storage:\n      class: hdd\n",
       &west, "no storage class \"hdd\""},
      {plugins::make_machine_type_filter(), base + "  placement:\n    machineType: BareMetal\n",
       &west, "machines are VirtualMachine, request needs BareMetal"},
      {plugins::make_resource_fit_filter(), "  resources:\n    cpu: 8\n", &west,
       "0 of 1 nodes fit: 1 insufficient cpu"},
      // The cluster's device counts rule it out before any node is looked at.
      {plugins::make_resource_fit_filter(),
       "  resources:\n    accelerators:\n      - model: A100\n        count: 1\n", &west,
       "0 of 1 nodes fit: the whole cluster has too few free devices of the model"},
      // Enough devices in total, but not two on one node: the nodes say why.
      {plugins::make_resource_fit_filter(),
       "  resources:\n    accelerators:\n      - model: A100\n        count: 2\n", &pair,
       "0 of 2 nodes fit: 2 without enough free devices of the model"},
  };
  for (const Case& c : cases) {
    const auto spec = request(c.spec);
    const auto reason = c.filter->reject(spec, demand_of(spec), *c.cluster);
    BOOST_TEST(reason.value_or("") == c.reason, c.filter->name() << " on " << c.spec);
    // A decision skips a filter that passes every cluster: none of these refusals may be lost.
    BOOST_TEST((c.reason.empty() || !c.filter->passes_every_cluster(spec)),
               c.filter->name() << " on " << c.spec);
  }
}

BOOST_AUTO_TEST_CASE(a_decision_skips_the_filters_its_request_asks_nothing_of) {
  const auto plain = request("  resources:\n    cpu: 1\n");
  for (const auto& filter : {plugins::make_affinity_filter(), plugins::make_latency_filter(),
                             plugins::make_storage_filter(), plugins::make_machine_type_filter()}) {
    BOOST_TEST(filter->passes_every_cluster(plain), filter->name());
  }
  // These look at the cluster itself, whatever the request.
  for (const auto& filter : {plugins::make_health_filter(), plugins::make_view_only_filter(),
                             plugins::make_resource_fit_filter()}) {
    BOOST_TEST(!filter->passes_every_cluster(plain), filter->name());
  }
}

BOOST_AUTO_TEST_CASE(a_node_reserved_beyond_its_size_does_not_hide_one_with_room) {
  // A scheduler's copy may hold reservations its cluster has not confirmed: a node, or a device,
  // allocated beyond what it has. Summed, the cluster would look full; its other node has room.
  auto over = node("over", 4000, 16, 1);
  over.allocated_cpu_milli = 12000;
  over.devices[0].allocated_milli = 1900;
  const auto room = node("room", 4000, 16, 1);
  model::ClusterView view;
  BOOST_TEST_REQUIRE(!view.replace({over, room}, {}, model::Allocation::MayExceed));
  const ClusterInfo info{"c", "r", "", model::MachineType::VirtualMachine, true, false};
  const ClusterCandidate cluster{&info, &view};
  for (const char* spec :
       {"  resources:\n    cpu: 2\n", "  resources:\n    accelerators:\n      - share: 500m\n"}) {
    const auto request_spec = request(spec);
    const auto refusal =
        plugins::make_resource_fit_filter()->reject(request_spec, demand_of(request_spec), cluster);
    BOOST_TEST(!refusal.has_value(), spec << ": " << refusal.value_or(""));
  }
}

BOOST_AUTO_TEST_CASE(scorers_order_nodes_as_named) {
  testing::Fleet fleet;
  fleet.add("c", "r", {});
  const ClusterCandidate& cluster = fleet.candidates[0];
  auto empty = node("empty", 8000, 32);
  auto busy = node("busy", 8000, 32);
  busy.allocated_cpu_milli = 6000;
  busy.allocated_memory_bytes = int64_t{24} << 30;
  auto gpu = node("gpu", 8000, 32, 8);
  auto gpu_busy = node("gpu-busy", 8000, 32, 8);
  for (int i = 0; i < 6; ++i) {
    gpu_busy.devices[static_cast<size_t>(i)].allocated_milli = 1000;
  }
  const auto cpu_request = request("  resources:\n    cpu: 1\n    memory: 1Gi\n");
  const auto gpu_request = request("  resources:\n    accelerators:\n      - count: 2\n");
  const ReplicaDemand cpu_demand = demand_of(cpu_request);
  const ReplicaDemand gpu_demand = demand_of(gpu_request);
  const auto least = plugins::make_least_allocated();
  const auto most = plugins::make_most_allocated();
  const auto packing = plugins::make_gpu_packing();
  // As the pipeline scores: with the devices the replica would take on that node.
  const auto score = [&](const auto& scorer, const model::SchedulingRequestSpec& spec,
                         const ReplicaDemand& demand, const model::NodeState& on) {
    CycleState cycle(0);
    return scorer->score(spec, demand, cluster, on, fit_on_node(on, demand), cycle);
  };
  BOOST_TEST(score(least, cpu_request, cpu_demand, empty) >
             score(least, cpu_request, cpu_demand, busy));
  BOOST_TEST(score(most, cpu_request, cpu_demand, busy) >
             score(most, cpu_request, cpu_demand, empty));
  BOOST_TEST(score(packing, gpu_request, gpu_demand, gpu_busy) >
             score(packing, gpu_request, gpu_demand, gpu));  // fill the fuller node
  BOOST_TEST(score(packing, cpu_request, cpu_demand, empty) >
             score(packing, cpu_request, cpu_demand, gpu));  // keep GPUs for GPU work
}

BOOST_AUTO_TEST_CASE(locality_prefers_the_first_region_then_low_latency) {
  testing::Fleet fleet;
  auto& near = fleet.add("near", "eu", {});
  auto& far = fleet.add("far", "us", {});
  model::ClusterResources fast;
  fast.latency_max_ns = 100'000;
  model::ClusterResources slow;
  slow.latency_max_ns = 5'000'000;
  near.set_resources(fast);
  far.set_resources(slow);
  const auto locality = plugins::make_locality();
  const auto plain = request("  resources:\n    cpu: 1\n");
  const auto prefers_us =
      request("  resources:\n    cpu: 1\n  placement:\n    affinity:\n      regions: [us, eu]\n");
  const model::NodeState n = node("n", 1000, 1);
  CycleState cycle(0);
  BOOST_TEST(locality->score(plain, {}, fleet.candidates[0], n, {}, cycle) >
             locality->score(plain, {}, fleet.candidates[1], n, {}, cycle));
  BOOST_TEST(locality->score(prefers_us, {}, fleet.candidates[1], n, {}, cycle) >
             locality->score(prefers_us, {}, fleet.candidates[0], n, {}, cycle));
}

BOOST_AUTO_TEST_CASE(registry_refuses_duplicates_and_unknown_names) {
  Registry registry;
  BOOST_TEST(registry.add_scorer("x", plugins::make_locality));
  BOOST_TEST(!registry.add_scorer("x", plugins::make_locality));
  BOOST_TEST(registry.add_filter("f", plugins::make_health_filter));
  BOOST_TEST(!registry.add_filter("f", plugins::make_health_filter));
  std::string error;
  BOOST_TEST(!Registry::builtin().make_policy("p", {{"nope", 1.0}}, error).has_value());
  BOOST_TEST(error == "unknown scorer \"nope\"");
  BOOST_TEST(!Registry::builtin().preset("fastest", error).has_value());
  BOOST_TEST(error.find("use spread, binpack, balanced, bestfit, random or fgd") !=
             std::string::npos);
  BOOST_TEST(Registry::builtin().scorer_names().size() == 9u);
  BOOST_TEST(Registry::builtin().make_scorer("nope") == nullptr);
  BOOST_TEST(std::string(Registry::builtin().make_scorer("gpu-in-use")->name()) == "gpu-in-use");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(pipeline)

BOOST_AUTO_TEST_CASE(replicas_account_for_each_other_within_a_decision) {
  testing::Fleet fleet;
  fleet.add("c", "r", {node("a", 4000, 16), node("b", 4000, 16)});
  const auto decision =
      decide(request("  replicas: 4\n  resources:\n    cpu: 2\n    memory: 8Gi\n"),
             fleet.candidates, preset("spread"));
  BOOST_TEST_REQUIRE((decision.status == DecisionStatus::Placed), decision.explain());
  std::map<std::string, int> per_node;
  for (const auto& p : decision.placements) {
    ++per_node[p.node];
  }
  BOOST_TEST(per_node["a"] == 2);
  BOOST_TEST(per_node["b"] == 2);
  const auto fifth = decide(request("  replicas: 5\n  resources:\n    cpu: 2\n"), fleet.candidates,
                            preset("spread"));
  BOOST_TEST((fifth.status == DecisionStatus::PartiallyPlaced));
  BOOST_TEST(fifth.placements.size() == 4u);
}

BOOST_AUTO_TEST_CASE(host_ports_are_used_once_per_node) {
  testing::Fleet fleet;
  fleet.add("c", "r", {node("a", 8000, 16), node("b", 8000, 16)});
  const auto spec = "  replicas: 3\n  resources:\n    cpu: 1\n    hostPorts: [7777]\n";
  const auto decision = decide(request(spec), fleet.candidates, preset("binpack"));
  BOOST_TEST((decision.status == DecisionStatus::PartiallyPlaced));
  BOOST_TEST_REQUIRE(decision.placements.size() == 2u);
  BOOST_TEST(decision.placements[0].node != decision.placements[1].node);
}

BOOST_AUTO_TEST_CASE(gangs_are_all_or_nothing_and_say_why) {
  testing::Fleet fleet;
  fleet.add("small", "r", {node("s", 64000, 256, 4)});
  fleet.add("sick", "r", {node("x", 64000, 256, 8)}, false);
  const auto spec =
      "  replicas: 2\n  resources:\n    accelerators:\n      - model: A100\n        count: 4\n"
      "        topology: NVLink\n  distribution:\n    gang: true\n";
  const auto decision = decide(request(spec), fleet.candidates, preset("balanced"));
  BOOST_TEST((decision.status == DecisionStatus::Unschedulable));
  BOOST_TEST(decision.placements.empty());
  const std::string why = decision.explain();
  BOOST_TEST(why.find("sick: health: cluster is not healthy") != std::string::npos, why);
  BOOST_TEST(why.find("1 of 2 replicas fit") != std::string::npos, why);
}

BOOST_AUTO_TEST_CASE(together_keeps_every_replica_in_one_cluster) {
  testing::Fleet fleet;
  fleet.add("one", "r", {node("a", 4000, 16)});
  fleet.add("two", "r", {node("b", 4000, 16), node("c", 4000, 16)});
  const auto decision = decide(
      request("  replicas: 3\n  resources:\n    cpu: 2\n  distribution:\n    mode: Together\n"),
      fleet.candidates, preset("spread"));
  BOOST_TEST_REQUIRE((decision.status == DecisionStatus::Placed), decision.explain());
  BOOST_TEST(placed_in(decision, "two") == 3u);
}

BOOST_AUTO_TEST_CASE(weights_split_replicas) {
  testing::Fleet fleet;
  fleet.add("a", "r", {node("a1", 64000, 256)});
  fleet.add("b", "r", {node("b1", 64000, 256)});
  const auto decision = decide(
      request("  replicas: 8\n  resources:\n    cpu: 1\n  distribution:\n    weights:\n"
              "      - cluster: a\n        weight: 3\n      - cluster: b\n        weight: 1\n"),
      fleet.candidates, preset("spread"));
  BOOST_TEST_REQUIRE((decision.status == DecisionStatus::Placed), decision.explain());
  BOOST_TEST(placed_in(decision, "a") == 6u);
  BOOST_TEST(placed_in(decision, "b") == 2u);
}

BOOST_AUTO_TEST_CASE(gpu_work_lands_on_a_node_that_can_really_hold_it) {
  testing::Fleet fleet;
  auto pcie = node("pcie-8", 64000, 256, 8, model::Interconnect::PCIe);
  auto linked = node("nvlink-4", 64000, 256, 4, model::Interconnect::NVLink);
  fleet.add("c", "r", {pcie, linked});
  const auto decision =
      decide(request("  resources:\n    accelerators:\n      - model: A100\n        count: 4\n"
                     "        topology: NVLink\n        minMemoryPerGPU: 40Gi\n"),
             fleet.candidates, preset("spread"));
  BOOST_TEST_REQUIRE((decision.status == DecisionStatus::Placed), decision.explain());
  BOOST_TEST(decision.placements[0].node == "nvlink-4");
  BOOST_TEST(decision.placements[0].devices.size() == 4u);
}

// Devices as Kubernetes names them: the resource, the link generation, the model by its tokens.
BOOST_AUTO_TEST_CASE(accelerators_are_matched_as_kubernetes_names_them) {
  const auto named = [](const std::string& name, const std::string& resource,
                        const std::string& device_model, int32_t generation) {
    auto n = node(name, 64000, 256, 8, model::Interconnect::NVLink, device_model);
    for (auto& device : n.devices) {
      device.resource = model::Symbol(resource);
      device.link_generation = generation;
    }
    return n;
  };
  testing::Fleet fleet;
  fleet.add("c", "r",
            {named("a-amd", "amd.com/gpu", "NVIDIA-A100-SXM4-80GB", 4),
             named("b-a10", "nvidia.com/gpu", "NVIDIA-A10", 4),
             named("c-nvlink3", "nvidia.com/gpu", "NVIDIA-A100-SXM4-80GB", 3),
             named("d-right", "nvidia.com/gpu", "NVIDIA-A100-SXM4-80GB", 4)});
  const auto decision =
      decide(request("  resources:\n    accelerators:\n      - type: nvidia.com/gpu\n"
                     "        model: A100\n        count: 8\n        topology: NVLink>=4\n"),
             fleet.candidates, preset("spread"));
  BOOST_TEST_REQUIRE((decision.status == DecisionStatus::Placed), decision.explain());
  BOOST_TEST(decision.placements[0].node == "d-right");
}

BOOST_AUTO_TEST_CASE(a_node_sample_scores_few_nodes_but_still_finds_the_one_that_fits) {
  testing::Fleet fleet;
  std::vector<model::NodeState> busy;
  for (int i = 0; i < 400; ++i) {
    busy.push_back(node("busy-" + std::to_string(i), 1000, 16));
  }
  fleet.add("many", "r", busy);
  fleet.add("one", "r", {node("roomy", 64000, 256)});
  auto sampling = preset("spread");
  sampling.node_sample = 4;
  const auto spec = request("  resources:\n    cpu: 8\n");
  // 1 node of 401 fits: draws almost surely miss it, and the search of every node finds it.
  const auto decision = decide(spec, fleet.candidates, sampling, 42);
  BOOST_TEST_REQUIRE((decision.status == DecisionStatus::Placed), decision.explain());
  BOOST_TEST(decision.placements[0].node == "roomy");
}

BOOST_AUTO_TEST_CASE(a_sampled_decision_that_falls_short_says_why_as_an_exhaustive_one_does) {
  // "full" has free devices, but on nodes without the cpu: its totals pass it, its nodes do not.
  testing::Fleet fleet;
  std::vector<model::NodeState> full;
  for (int i = 0; i < 50; ++i) {
    model::NodeState n = node("full-" + std::to_string(i), 8000, 64, 2);
    n.allocated_cpu_milli = 8000;
    full.push_back(n);
  }
  fleet.add("full", "r", full);
  fleet.add("cpu-only", "r", {node("plain", 64000, 256)});
  std::vector<model::NodeState> roomy;
  for (int i = 0; i < 50; ++i) {
    roomy.push_back(node("roomy-" + std::to_string(i), 64000, 256, 2));
  }
  auto sampling = preset("spread");
  sampling.node_sample = 4;
  const auto spec = request(
      "  replicas: 3\n  resources:\n    cpu: 1\n    accelerators:\n      - model: A100\n"
      "        count: 2\n");
  const auto exhaustive = decide(spec, fleet.candidates, preset("spread"), 3);
  const auto sampled = decide(spec, fleet.candidates, sampling, 3);
  BOOST_TEST_REQUIRE((sampled.status == DecisionStatus::Unschedulable));
  BOOST_TEST(sampled.explain() == exhaustive.explain());
  BOOST_TEST(
      sampled.explain().find("full: resource-fit: 0 of 50 nodes fit: 50 ") != std::string::npos,
      sampled.explain());
  // With room elsewhere, the draws pass over the cluster its totals let through.
  fleet.add("roomy", "r", roomy);
  const auto placed = decide(spec, fleet.candidates, sampling, 3);
  BOOST_TEST_REQUIRE((placed.status == DecisionStatus::Placed), placed.explain());
  for (const auto& placement : placed.placements) {
    BOOST_TEST(placement.cluster == "roomy");
  }
  BOOST_TEST(placed.diagnoses.empty());
  // Only one replica's room: partially placed, with the exhaustive decision's reasons.
  model::ClusterView& small = fleet.add("small", "r", {node("one", 64000, 256, 2)});
  (void)small;
  fleet.candidates.erase(fleet.candidates.begin() + 2);  // "roomy" out again
  const auto partly_sampled = decide(spec, fleet.candidates, sampling, 3);
  const auto partly_exhaustive = decide(spec, fleet.candidates, preset("spread"), 3);
  BOOST_TEST_REQUIRE((partly_sampled.status == DecisionStatus::PartiallyPlaced),
                     partly_sampled.explain());
  BOOST_TEST(partly_sampled.explain() == partly_exhaustive.explain());
  BOOST_TEST(partly_sampled.explain().find("1 of 3 replicas fit") != std::string::npos,
             partly_sampled.explain());
}

BOOST_AUTO_TEST_CASE(no_replica_goes_to_a_node_to_avoid_sampled_or_not) {
  std::vector<std::string> names;
  std::vector<model::NodeState> nodes;
  while (names.size() < 100) {
    names.push_back("n" + std::to_string(names.size()));
    nodes.push_back(node(names.back(), 64000, 256));
  }
  testing::Fleet fleet;
  fleet.add("c", "r", nodes);
  fleet.add("d", "r", {node("n0", 64000, 256)});  // the same name in another cluster
  const auto spec = request("  replicas: 3\n  resources:\n    cpu: 1\n");
  const std::string c = "c";
  const std::string d = "d";
  policy::NodeKeys avoid{{d, names[0]}};  // every node but c's n7 and n42
  for (const std::string& name : names) {
    if (name != "n7" && name != "n42") {
      avoid.emplace(c, name);
    }
  }
  auto sampling = preset("spread");
  sampling.node_sample = 4;
  for (const auto& policy : {preset("spread"), sampling}) {
    const auto decision = decide(spec, fleet.candidates, policy, 5, avoid);
    BOOST_TEST_REQUIRE((decision.status == DecisionStatus::Placed), decision.explain());
    for (const auto& placement : decision.placements) {
      BOOST_TEST(placement.cluster == "c");
      BOOST_TEST((placement.node == "n7" || placement.node == "n42"), placement.node);
    }
  }
  avoid.emplace(c, names[7]);
  avoid.emplace(c, names[42]);
  BOOST_TEST(
      (decide(spec, fleet.candidates, sampling, 5, avoid).status == DecisionStatus::Unschedulable));
}

BOOST_AUTO_TEST_CASE(a_node_sample_picks_the_best_of_its_draws_reproducibly) {
  testing::Fleet fleet;
  std::vector<model::NodeState> nodes;
  for (int i = 0; i < 200; ++i) {
    model::NodeState n = node("n" + std::to_string(i), 64000, 256);
    n.allocated_cpu_milli = 1000 * (i % 50);  // spread prefers the least allocated
    nodes.push_back(n);
  }
  fleet.add("c", "r", nodes);
  auto sampling = preset("spread");
  sampling.node_sample = 16;
  const auto spec = request("  resources:\n    cpu: 1\n");
  const auto first = decide(spec, fleet.candidates, sampling, 7);
  const auto again = decide(spec, fleet.candidates, sampling, 7);
  BOOST_TEST_REQUIRE((first.status == DecisionStatus::Placed));
  BOOST_TEST(first.placements[0].node == again.placements[0].node);
  // The best of 16 draws is in the better part of the nodes, far from the worst.
  const auto* chosen = fleet.views.front().find(first.placements[0].node);
  BOOST_TEST(chosen->allocated_cpu_milli <= 25'000);
  // Other seeds draw other nodes: two schedulers rarely pick the same one.
  std::set<std::string> picks;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    picks.insert(decide(spec, fleet.candidates, sampling, seed).placements[0].node);
  }
  BOOST_TEST(picks.size() > 5u);
}

BOOST_AUTO_TEST_CASE(best_fit_takes_the_tightest_node_and_random_any_fitting_one) {
  testing::Fleet fleet;
  model::NodeState roomy = node("roomy", 64000, 256, 8, model::Interconnect::PCIe);
  model::NodeState tight = node("tight", 64000, 256, 8, model::Interconnect::PCIe);
  tight.allocated_cpu_milli = 48000;
  for (int d = 0; d < 6; ++d) {
    tight.devices[static_cast<size_t>(d)].allocated_milli = 1000;
  }
  fleet.add("c", "r", {roomy, tight});
  const auto spec = request("  resources:\n    cpu: 4\n    accelerators:\n      - count: 1\n");
  BOOST_TEST(decide(spec, fleet.candidates, preset("bestfit")).placements[0].node == "tight");
  std::set<std::string> picked;
  const auto random = preset("random");
  for (uint64_t seed = 0; seed < 20; ++seed) {  // each decision draws from its own seed
    picked.insert(decide(spec, fleet.candidates, random, seed).placements[0].node);
  }
  BOOST_TEST(picked.size() == 2u);
}

BOOST_AUTO_TEST_CASE(fgd_puts_a_share_where_the_typical_work_loses_least) {
  testing::Fleet fleet;
  // "whole" has eight idle GPUs; "used" has one GPU with 500 idle. The workload is mostly
  // 8-GPU pods: a share on "whole" would leave no node for them.
  model::NodeState used = node("used", 64000, 256, 8, model::Interconnect::PCIe);
  for (auto& device : used.devices) {
    device.allocated_milli = 1000;
  }
  used.devices[3].allocated_milli = 500;
  fleet.add("c", "r", {node("whole", 64000, 256, 8, model::Interconnect::PCIe), used});
  const std::vector<PodShape> shapes = {{1000, 8, 1000, {}, 0.9}, {1000, 1, 500, {}, 0.1}};
  const auto spec = request("  resources:\n    cpu: 1\n    accelerators:\n      - share: 500m\n");
  const auto decision = decide(spec, fleet.candidates, fgd_policy(shapes, false));
  BOOST_TEST_REQUIRE((decision.status == DecisionStatus::Placed), decision.explain());
  BOOST_TEST(decision.placements[0].node == "used");
  BOOST_TEST(decision.placements[0].devices == std::vector<int32_t>{3});
  BOOST_TEST(decision.placements[0].device_milli == std::vector<int32_t>{500});
}

// A decision repeats for its seed, and replays keep their figures, only while its draws stay
// std::mt19937_64's: the lazy engine must give the same numbers past each 312-word block.
BOOST_AUTO_TEST_CASE(a_decision_draws_the_standard_engines_numbers_for_its_seed) {
  for (const uint64_t seed : {uint64_t{0}, uint64_t{1}, uint64_t{42}, uint64_t{5489},
                              uint64_t{0x9e3779b97f4a7c15}, ~uint64_t{0}}) {
    std::mt19937_64 standard(seed);
    CycleState cycle(seed);
    size_t differing = 0;
    for (int draw = 0; draw < 1000; ++draw) {
      differing += cycle.draw() != standard() ? 1 : 0;
    }
    BOOST_TEST(differing == 0u, "seed " << seed);
  }
}

// A draw's cluster is found by a guess and a few steps; it must be the binary search's answer
// for clusters of one size, of very different sizes, and empty ones.
BOOST_AUTO_TEST_CASE(a_fleet_position_falls_in_the_cluster_a_binary_search_finds) {
  std::mt19937_64 random(7);
  for (int fleet = 0; fleet < 200; ++fleet) {
    const size_t clusters = 1 + random() % 120;
    std::vector<size_t> ends;
    for (size_t i = 0; i < clusters; ++i) {
      const size_t size = fleet % 3 == 0 ? 1000 : fleet % 3 == 1 ? random() % 50 : random() % 5000;
      ends.push_back((ends.empty() ? 0 : ends.back()) + size);
    }
    if (ends.back() == 0) {
      continue;
    }
    size_t wrong = 0;
    for (int draw = 0; draw < 500; ++draw) {
      const size_t at = random() % ends.back();
      const auto expected =
          static_cast<size_t>(std::upper_bound(ends.begin(), ends.end(), at) - ends.begin());
      wrong += cluster_at(ends, at) != expected ? 1 : 0;
    }
    BOOST_TEST(wrong == 0u, "fleet " << fleet << " of " << clusters << " clusters");
  }
}

BOOST_AUTO_TEST_SUITE_END()
