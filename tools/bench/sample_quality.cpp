#include "tools/bench/sample_quality.hpp"

#include <spdlog/spdlog.h>

#include <map>
#include <vector>

#include "adapters/simulated_cluster.hpp"
#include "model/reservation.hpp"
#include "policy/framework.hpp"
#include "policy/pipeline.hpp"
#include "policy/splitmix.hpp"
#include "runtime/workload.hpp"
#include "tools/bench/fixtures.hpp"
#include "tools/bench/json_line.hpp"

namespace unisched::bench {
namespace {

struct LocalCluster {
  policy::ClusterInfo info;
  model::ClusterView view;
};

/// The run's clusters as their simulations stand after 10 simulated seconds of background pods.
std::string build_fleet(const SampleQualityParameters& parameters,
                        std::vector<LocalCluster>& fleet) {
  std::string problem;
  const auto planned = run_clusters(parameters.profiles, parameters.clusters, problem);
  if (planned.empty()) {
    return problem;
  }
  fleet.resize(planned.size());
  for (size_t i = 0; i < planned.size(); ++i) {
    adapters::SimulationOptions options;
    options.seed = 1 + i;
    options.node_count = parameters.nodes;
    adapters::SimulatedCluster simulated(planned[i], options);
    for (int step = 0; step < 100; ++step) {
      simulated.poll_changes();
    }
    const model::ClusterProfileSpec& spec = planned[i].spec;
    fleet[i].info = {
        spec.cluster_id, spec.topology.region, spec.topology.zone, spec.machine_type, true, false};
    if (const auto refusal = fleet[i].view.replace(simulated.list_nodes(), simulated.resources())) {
      return spec.cluster_id + ": " + refusal->to_string();
    }
  }
  return {};
}

/// Puts the placements of a decision into their views (sign +1) or takes them out (-1).
void apply(std::vector<LocalCluster>& fleet, const policy::Decision& decision,
           const std::string& id, int sign) {
  for (size_t r = 0; r < decision.placements.size(); ++r) {
    const policy::ReplicaPlacement& placement = decision.placements[r];
    for (LocalCluster& cluster : fleet) {
      const model::NodeState* node =
          cluster.info.id == placement.cluster ? cluster.view.find(placement.node) : nullptr;
      if (node == nullptr) {
        continue;
      }
      model::NodeState after = *node;
      model::apply_reservation(after,
                               {id + "/" + std::to_string(r), placement.node, placement.cpu_milli,
                                placement.memory_bytes, placement.devices, placement.host_ports,
                                placement.device_milli, ""},
                               sign);
      cluster.view.apply({{model::NodeChangeKind::Update, std::move(after)}},
                         model::Allocation::MayExceed);
    }
  }
}

}  // namespace

SampleQualityResult sample_quality(const SampleQualityParameters& parameters) {
  SampleQualityResult result;
  std::string error;
  auto sampled = policy::Registry::builtin().preset(parameters.policy, error);
  if (!sampled) {
    result.problem = error;
    return result;
  }
  policy::set_node_sample(*sampled, std::nullopt);
  policy::Policy every = *sampled;
  policy::set_node_sample(every, 0);
  std::vector<LocalCluster> fleet;
  if (result.problem = build_fleet(parameters, fleet); !result.problem.empty()) {
    return result;
  }
  std::vector<policy::ClusterCandidate> candidates;
  for (const LocalCluster& cluster : fleet) {
    candidates.push_back({&cluster.info, &cluster.view});
    result.fleet_nodes += cluster.view.size();
  }
  result.nodes_scored = policy::adaptive_node_sample(result.fleet_nodes);
  runtime::WorkloadGenerator workload(runtime::default_workload(), 1, parameters.rate,
                                      std::chrono::milliseconds(3000));
  std::multimap<int64_t, std::pair<std::string, policy::Decision>> endings;  // by end, ms
  std::vector<double> ratios;
  double sampled_seconds = 0;
  double every_seconds = 0;
  constexpr int64_t kStepMs = 50;
  for (int64_t now = 0; now < int64_t{parameters.seconds} * 1000; now += kStepMs) {
    while (!endings.empty() && endings.begin()->first <= now) {
      apply(fleet, endings.begin()->second.second, endings.begin()->second.first, -1);
      endings.erase(endings.begin());
    }
    for (const runtime::Arrival& arrival : workload.next(std::chrono::milliseconds(kStepMs))) {
      const model::SchedulingRequestSpec& spec = arrival.shape->spec;
      const uint64_t seed = policy::decision_seed(1, arrival.request_id);
      const bool audited = result.requests++ % static_cast<uint64_t>(parameters.audit_every) == 0;
      auto start = Clock::now();
      policy::Decision decision = policy::decide(spec, candidates, *sampled, seed);
      if (audited) {
        sampled_seconds += milliseconds_since(start) / 1000.0;
        start = Clock::now();
        const policy::Decision best = policy::decide(spec, candidates, every, seed);
        every_seconds += milliseconds_since(start) / 1000.0;
        if (!decision.placements.empty() && !best.placements.empty()) {
          const double found = decision.placements[0].score;
          const double top = best.placements[0].score;
          ratios.push_back(top > 0 ? found / top : 1.0);
          result.same_score += found >= top ? 1 : 0;
        }
      }
      if (decision.status == policy::DecisionStatus::Placed) {
        ++result.placed;
        apply(fleet, decision, arrival.request_id, +1);
        endings.emplace(now + arrival.runs_for.count(),
                        std::make_pair(arrival.request_id, std::move(decision)));
      }
    }
  }
  result.compared = ratios.size();
  double sum = 0;
  for (const double ratio : ratios) {
    sum += ratio;
  }
  result.mean_score_ratio = ratios.empty() ? 0 : sum / static_cast<double>(ratios.size());
  result.p1_score_ratio = percentile(ratios, 0.01);
  const double audits = static_cast<double>(
      std::max<uint64_t>(1, (result.requests + static_cast<uint64_t>(parameters.audit_every) - 1) /
                                static_cast<uint64_t>(parameters.audit_every)));
  result.sampled_ms = 1000 * sampled_seconds / audits;
  result.every_ms = 1000 * every_seconds / audits;
  return result;
}

bool run_sample_quality(const Flags& flags, const std::string&) {
  std::vector<SampleQualityParameters> runs;
  const auto add = [&](int clusters, int nodes, int audit_every) {
    SampleQualityParameters parameters;
    parameters.clusters = clusters;
    parameters.nodes = nodes;
    parameters.audit_every = audit_every;
    parameters.seconds = flags.number("seconds", parameters.seconds);
    parameters.rate = flags.number("rate", static_cast<int>(parameters.rate));
    parameters.policy = flags.text("policy", parameters.policy);
    parameters.profiles = flags.text("profiles", UNISCHED_SOURCE_DIR "/config/profiles");
    runs.push_back(parameters);
  };
  if (flags.given("clusters") || flags.given("nodes")) {
    add(flags.number("clusters", 5), flags.number("nodes", 40), flags.number("audit-every", 1));
  } else {
    add(5, 40, 1);
    add(100, 1000, 10);
    add(50, 2000, 10);
  }
  bool clean = true;
  for (const SampleQualityParameters& parameters : runs) {
    std::fprintf(stderr, "sample-quality: %d clusters x %d nodes, %d s of requests at %.0f/s\n",
                 parameters.clusters, parameters.nodes, parameters.seconds, parameters.rate);
    const SampleQualityResult result = sample_quality(parameters);
    JsonLine("sample-quality")
        .integer("clusters", parameters.clusters)
        .integer("nodes", parameters.nodes)
        .text("policy", parameters.policy)
        .integer("fleet_nodes", static_cast<int64_t>(result.fleet_nodes))
        .integer("nodes_scored", static_cast<int64_t>(result.nodes_scored))
        .integer("requests", static_cast<int64_t>(result.requests))
        .integer("placed", static_cast<int64_t>(result.placed))
        .integer("compared", static_cast<int64_t>(result.compared))
        .integer("same_score", static_cast<int64_t>(result.same_score))
        .number("mean_score_ratio", result.mean_score_ratio)
        .number("p1_score_ratio", result.p1_score_ratio)
        .number("sampled_ms", result.sampled_ms)
        .number("every_ms", result.every_ms)
        .flag("ok", result.problem.empty())
        .print();
    std::fprintf(stderr,
                 "  %llu nodes, %llu scored per replica: of %llu decisions compared, %llu as good "
                 "as the best node; score %.4f of the best on average, %.4f at the worst 1%%; "
                 "%.3f ms sampled, %.3f ms every node\n",
                 static_cast<unsigned long long>(result.fleet_nodes),
                 static_cast<unsigned long long>(result.nodes_scored),
                 static_cast<unsigned long long>(result.compared),
                 static_cast<unsigned long long>(result.same_score), result.mean_score_ratio,
                 result.p1_score_ratio, result.sampled_ms, result.every_ms);
    if (!result.problem.empty()) {
      std::fprintf(stderr, "problem: %s\n", result.problem.c_str());
      clean = false;
    }
  }
  return clean;
}

}  // namespace unisched::bench
