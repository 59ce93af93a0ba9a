#include "runtime/replay_parts.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <tuple>

#include "adapters/gpu_trace_workload.hpp"
#include "adapters/simulated_cluster.hpp"
#include "model/manifest.hpp"
#include "model/reservation.hpp"
#include "policy/trace_policies.hpp"

namespace unisched::runtime::replay_parts {
namespace {

using adapters::TraceNode;
using adapters::TracePod;

std::string cluster_id(size_t index) {
  return "trace-" + std::to_string(index);
}

std::vector<std::vector<TraceNode>> partition_nodes(const std::vector<TraceNode>& nodes,
                                                    size_t clusters, TracePartition partition,
                                                    uint64_t seed) {
  std::vector<std::vector<TraceNode>> parts(clusters);
  if (partition == TracePartition::Model) {
    // Models by GPU count, most first, each to the cluster with the fewest GPUs so far.
    std::map<std::string, int64_t> gpus_of;
    for (const TraceNode& node : nodes) {
      gpus_of[node.model] += node.gpus;
    }
    std::vector<std::pair<int64_t, std::string>> models;
    for (const auto& [model, gpus] : gpus_of) {
      models.emplace_back(-gpus, model);
    }
    std::sort(models.begin(), models.end());
    std::vector<int64_t> load(clusters, 0);
    std::map<std::string, size_t> home;
    for (const auto& [negative_gpus, model] : models) {
      const size_t lightest =
          static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
      home[model] = lightest;
      load[lightest] -= negative_gpus;
    }
    for (const TraceNode& node : nodes) {
      parts[home[node.model]].push_back(node);
    }
    return parts;
  }
  std::mt19937_64 random(seed);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const size_t to = partition == TracePartition::RoundRobin ? i % clusters : random() % clusters;
    parts[to].push_back(nodes[i]);
  }
  return parts;
}

/// A cluster's profile as manifest text (so it is checked as any other), and its nodes' names in
/// the order the profile builds them.
struct TraceProfile {
  std::string text;
  std::vector<std::string> node_names;
};

/// A profile whose node groups are the distinct node shapes. The nodes keep the trace's names,
/// which the policies' tie orders (by name, hashed or shuffled) read.
TraceProfile trace_profile(const std::string& id, const std::vector<TraceNode>& nodes) {
  using Shape = std::tuple<int64_t, int64_t, int32_t, std::string>;
  std::vector<std::pair<Shape, std::vector<std::string>>> groups;  // shape -> its nodes
  for (const TraceNode& node : nodes) {
    const auto shape = std::make_tuple(node.cpu_milli, node.memory_mib, node.gpus, node.model);
    const auto found = std::find_if(groups.begin(), groups.end(),
                                    [&](const auto& group) { return group.first == shape; });
    if (found == groups.end()) {
      groups.push_back({shape, {node.name}});
    } else {
      found->second.push_back(node.name);
    }
  }
  TraceProfile profile;
  for (const auto& group : groups) {
    profile.node_names.insert(profile.node_names.end(), group.second.begin(), group.second.end());
  }
  std::string& text = profile.text;
  text =
      "apiVersion: scheduling.cluster.io/v1\nkind: ClusterResourceProfile\n"
      "metadata:\n  name: " +
      id + "\nspec:\n  clusterID: " + id +
      "\n  topology:\n    region: trace\n    zone: trace-a\n  nodeGroups:\n";
  for (size_t g = 0; g < groups.size(); ++g) {
    const auto& [shape, names] = groups[g];
    const auto& [cpu_milli, memory_mib, gpus, model] = shape;
    text += "    - name: g" + std::to_string(g) + "\n      count: " + std::to_string(names.size()) +
            "\n      node:\n        cpu: " + std::to_string(cpu_milli) +
            "m\n        memory: " + std::to_string(memory_mib) + "Mi\n        maxPods: 10000\n";
    if (gpus > 0) {
      // The trace gives no GPU memory and no pod asks for any: a stated size (32 GiB for the
      // "M32" models, else 16 GiB) only completes the profile.
      const bool big = model.size() >= 3 && model.compare(model.size() - 3, 3, "M32") == 0;
      text += "        accelerators:\n          - model: " + model +
              "\n            count: " + std::to_string(gpus) +
              "\n            memoryPerGPU: " + (big ? "32Gi" : "16Gi") + "\n";
    }
  }
  return profile;
}

policy::PodShape shape_of(const TracePod& pod) {
  return {pod.cpu_milli, pod.gpus, pod.gpu_milli, pod.models, 0};
}

const char* kind_of(const TracePod& pod) {
  return pod.gpus == 0 ? "cpu only" : pod.gpu_milli < 1000 ? "gpu share" : "whole gpus";
}

/// Sums for the per-load means.
struct LoadBuckets {
  std::map<int, double> allocation;
  std::map<int, double> fragmentation;
  std::map<int, int64_t> events;
};

/// The per-load means of the sums.
void average(const LoadBuckets& buckets, ReplayReport& report) {
  for (const int load : kReportedLoads) {
    if (const auto events = buckets.events.find(load); events != buckets.events.end()) {
      const auto count = static_cast<double>(events->second);
      report.allocation[load] = buckets.allocation.at(load) / count;
      report.fragmentation[load] = buckets.fragmentation.at(load) / count;
    }
  }
}

/// Books one pod's decision: placed (in `mirror`, checked against over-commits) or failed, by
/// the filter that refused it.
void book(const TracePod& pod, const v1::SchedulingDecision& decision, Mirror& mirror,
          ReplayReport& report) {
  ++report.pods;
  if (decision.status() == v1::SchedulingDecision::PLACED) {
    ++report.placed;
    report.allocated_milli += adapters::requested_gpu_milli(pod);
    for (const auto& replica : decision.replicas()) {
      if (const std::string problem = mirror.place(replica.cluster(), replica, pod);
          !problem.empty()) {
        report.problems.push_back(pod.name + ": " + problem);
      }
    }
  } else if (report.problems.empty()) {
    ++report.failed[std::string(kind_of(pod)) + ": " +
                    (decision.diagnoses_size() > 0 ? decision.diagnoses(0).plugin()
                                                   : "no reason given")];
  }
}

}  // namespace

TraceClusters trace_clusters(const ReplayOptions& options, ReplayReport& report) {
  TraceClusters out;
  const auto parts = partition_nodes(options.nodes, static_cast<size_t>(options.clusters),
                                     options.partition, options.seed);
  for (size_t c = 0; c < parts.size(); ++c) {
    if (parts[c].empty()) {
      continue;  // more clusters than models
    }
    const std::string id = cluster_id(c);
    TraceProfile profile = trace_profile(id, parts[c]);
    const auto decoded = model::decode_manifest({profile.text, 1});
    if (!decoded.manifest || !decoded.errors.empty()) {
      report.problems.push_back(id + ": " +
                                (decoded.errors.empty() ? std::string("no profile")
                                                        : decoded.errors.front().to_string()));
      return {};
    }
    out.profiles.push_back(std::get<model::ClusterResourceProfile>(*decoded.manifest));
    out.node_names.push_back(std::move(profile.node_names));
  }
  return out;
}

std::optional<ReplaySetup> replay_setup(const ReplayOptions& options, ReplayReport& report) {
  report.capacity_milli = adapters::gpu_capacity_milli(options.nodes);
  if (report.capacity_milli == 0 || options.clusters < 1) {
    report.problems.push_back("the node list holds no GPU, or no cluster was asked for");
    return std::nullopt;
  }
  ReplaySetup setup;
  setup.arrivals =
      adapters::arrival_order(options.pods, options.seed, options.tune, report.capacity_milli);
  std::vector<policy::PodShape> trace_shapes;
  for (const TracePod& pod : options.pods) {
    trace_shapes.push_back(shape_of(pod));
  }
  setup.typical = policy::typical_shapes(trace_shapes);
  setup.clusters = trace_clusters(options, report);
  if (!report.problems.empty()) {
    return std::nullopt;
  }
  return setup;
}

adapters::SimulationOptions quiet_simulation(const ReplayOptions& options,
                                             const TraceClusters& clusters, size_t index) {
  adapters::SimulationOptions quiet;
  quiet.seed = options.seed;
  quiet.membership_events_per_second = 0;
  quiet.pod_events_per_second = 0;
  quiet.node_names = clusters.node_names[index];
  return quiet;
}

std::optional<policy::Policy> replay_policy(const ReplayOptions& options,
                                            const std::vector<policy::PodShape>& typical,
                                            ReplayReport& report) {
  std::string policy_error;
  auto policy = policy::trace_policy(options.policy, {typical}, policy_error);
  if (!policy) {
    std::string preset_error;
    policy = policy::Registry::builtin().preset(options.policy, preset_error);
  }
  if (!policy) {
    report.problems.push_back(policy_error + ", or a preset: spread, binpack, balanced");
    return std::nullopt;
  }
  policy->ties = options.ties.value_or(policy->ties);
  policy->tie_seed = options.seed;
  report.ties = policy->ties;
  return policy;
}

void Mirror::add(const std::string& cluster, const model::NodeState& node) {
  const std::string key = cluster + "/" + node.name;
  nodes_[key] = node;
  fragmentation_[key] = policy::node_fragmentation(node, shapes_);
  total_ += fragmentation_[key];
}

std::string Mirror::place(const std::string& cluster,
                          const v1::SchedulingDecision::Replica& replica, const TracePod& pod) {
  const std::string key = cluster + "/" + replica.node();
  const auto found = nodes_.find(key);
  if (found == nodes_.end()) {
    return "placed on unknown node " + key;
  }
  model::NodeState& node = found->second;
  const model::Reservation placement{replica.placement_id(),
                                     node.name,
                                     pod.cpu_milli,
                                     pod.memory_mib << 20,
                                     {replica.devices().begin(), replica.devices().end()},
                                     {},
                                     {replica.device_milli().begin(), replica.device_milli().end()},
                                     {}};
  // The rule every commit is held to: what does not fit the node is an over-commit.
  if (const auto conflict = model::reservation_conflict(node, placement)) {
    return "over-committed: " + *conflict;
  }
  model::apply_reservation(node, placement, +1);
  total_ -= fragmentation_[key];
  fragmentation_[key] = policy::node_fragmentation(node, shapes_);
  total_ += fragmentation_[key];
  return {};
}

void replay_arrivals(const std::vector<TracePod>& arrivals, const PodDecider& decide,
                     Mirror& mirror, ReplayReport& report,
                     const std::function<void(size_t, size_t)>& progress) {
  LoadBuckets buckets;
  int64_t arrived = 0;
  const auto capacity = static_cast<double>(report.capacity_milli);
  for (size_t p = 0; p < arrivals.size() && report.problems.empty(); ++p) {
    const std::optional<v1::SchedulingDecision> decision = decide(arrivals[p]);
    if (!decision) {
      break;
    }
    book(arrivals[p], *decision, mirror, report);
    arrived += adapters::requested_gpu_milli(arrivals[p]);
    const int load = static_cast<int>(std::lround(100.0 * static_cast<double>(arrived) / capacity));
    buckets.allocation[load] += 100.0 * static_cast<double>(report.allocated_milli) / capacity;
    buckets.fragmentation[load] += 100.0 * mirror.fragmentation() / capacity;
    ++buckets.events[load];
    if ((p + 1) % 1000 == 0 || p + 1 == arrivals.size()) {
      progress(p + 1, arrivals.size());
    }
  }
  average(buckets, report);
}

}  // namespace unisched::runtime::replay_parts
