// The replay straight through policy::decide. It keeps each cluster's view as a SchedulerActor
// keeps its copy (the simulated cluster's nodes, allocations allowed past the view's own checks)
// and applies each placement to it as the ClusterActor's feed would: so the policy sees the same
// views, draws with the same seeds and tells its observers the same placements, and decides as
// through the actors. The replay test holds the two equal on a slice of the trace.
#include <algorithm>
#include <map>
#include <memory>

#include "actors/scheduler_wire.hpp"
#include "adapters/gpu_trace_workload.hpp"
#include "cores/scheduler_commands.hpp"
#include "model/reservation.hpp"
#include "policy/demand.hpp"
#include "policy/pipeline.hpp"
#include "policy/splitmix.hpp"
#include "runtime/replay_parts.hpp"

namespace unisched::runtime::replay_parts {
namespace {

using Decision = v1::SchedulingDecision;

class DirectScheduler {
 public:
  DirectScheduler(policy::Policy policy, uint64_t draw_seed)
      : policy_(std::move(policy)), draw_seed_(draw_seed) {}

  /// Returns the problem when the view refuses the nodes.
  std::string add_cluster(policy::ClusterInfo info, std::vector<model::NodeState> nodes,
                          model::ClusterResources resources) {
    // In name order, as a ClusterActor's snapshot hands them over: draws go by position.
    std::sort(nodes.begin(), nodes.end(),
              [](const model::NodeState& a, const model::NodeState& b) { return a.name < b.name; });
    Local& local = clusters_[info.id];
    local.info = std::move(info);
    if (const auto problem = local.view.replace(std::move(nodes), std::move(resources),
                                                model::Allocation::MayExceed)) {
      return local.info.id + ": " + problem->to_string();
    }
    return {};
  }

  /// The pod's decision; its placements are in the views afterwards.
  Decision decide(const adapters::TracePod& pod, ReplayReport& report) {
    const model::SchedulingRequestSpec spec = adapters::request_for(pod);
    std::vector<policy::ClusterCandidate> candidates;
    for (auto& [id, local] : clusters_) {
      candidates.push_back({&local.info, &local.view});
    }
    const policy::Decision decided =
        policy::decide(spec, candidates, policy_, policy::decision_seed(draw_seed_, pod.name));
    Decision out;
    out.set_request_id(pod.name);
    for (const auto& found : decided.diagnoses) {
      auto& diagnosis = *out.add_diagnoses();
      diagnosis.set_cluster(found.cluster);
      diagnosis.set_plugin(found.plugin);
      diagnosis.set_reason(found.reason);
    }
    if (decided.status != policy::DecisionStatus::Placed) {
      out.set_status(Decision::UNSCHEDULABLE);
      return out;
    }
    out.set_status(Decision::PLACED);
    const policy::ReplicaDemand demand = policy::demand_of(spec);
    for (size_t i = 0; i < decided.placements.size(); ++i) {
      const policy::ReplicaPlacement& placement = decided.placements[i];
      const std::string id = pod.name + "/" + std::to_string(i);
      if (const std::string problem = reserve(placement, id, spec); !problem.empty()) {
        report.problems.push_back(pod.name + ": " + problem);
      }
      *out.add_replicas() = actors::to_wire(actors::replica_of(id, placement));
      for (const auto& observer : policy_.observers) {
        observer->placed(placement.cluster, placement.node, demand);
      }
    }
    return out;
  }

  /// The milli-GPU allocated in the views.
  int64_t allocated_milli() const {
    int64_t total = 0;
    for (const auto& [id, local] : clusters_) {
      for (const model::NodeState* node : local.view.sorted_nodes()) {
        for (const model::Device& device : node->devices) {
          total += device.allocated_milli;
        }
      }
    }
    return total;
  }

 private:
  struct Local {
    policy::ClusterInfo info;
    model::ClusterView view;
  };

  /// The placement in its cluster's view, as the ClusterActor's commit puts it there.
  std::string reserve(const policy::ReplicaPlacement& placement, const std::string& id,
                      const model::SchedulingRequestSpec& spec) {
    model::ClusterView& view = clusters_.at(placement.cluster).view;
    const model::NodeState* node = view.find(placement.node);
    if (node == nullptr) {
      return "placed on unknown node " + placement.node;
    }
    const model::Reservation reservation{id,
                                         placement.node,
                                         placement.cpu_milli,
                                         placement.memory_bytes,
                                         placement.devices,
                                         placement.host_ports,
                                         placement.device_milli,
                                         spec.pod_template};
    model::NodeState after = *node;
    if (const auto conflict = model::reservation_conflict(after, reservation)) {
      return "refused at commit: " + *conflict;
    }
    model::apply_reservation(after, reservation, +1);
    const auto problem = view.apply(
        std::vector<model::NodeChange>{{model::NodeChangeKind::Update, std::move(after)}},
        model::Allocation::MayExceed);
    return problem ? problem->to_string() : std::string();
  }

  policy::Policy policy_;
  uint64_t draw_seed_;
  std::map<std::string, Local> clusters_;  // by id: the order the scheduler offers them in
};

}  // namespace

void replay_direct(const ReplayOptions& options, const ReplaySetup& setup, Mirror& mirror,
                   ReplayReport& report, const std::function<void(size_t, size_t)>& progress) {
  std::optional<policy::Policy> policy = replay_policy(options, setup.typical, report);
  if (!policy) {
    return;
  }
  // The seed the replay's SchedulerActor draws with.
  DirectScheduler scheduler(std::move(*policy), options.seed + 1);
  const TraceClusters& clusters = setup.clusters;
  for (size_t c = 0; c < clusters.profiles.size(); ++c) {
    const adapters::SimulatedCluster cluster(clusters.profiles[c],
                                             quiet_simulation(options, clusters, c));
    const std::string id = clusters.profiles[c].spec.cluster_id;
    std::vector<model::NodeState> nodes = cluster.list_nodes();
    for (const model::NodeState& node : nodes) {
      mirror.add(id, node);
    }
    const std::string problem =
        scheduler.add_cluster({id, "trace", "trace-a", model::MachineType::VirtualMachine, true},
                              std::move(nodes), cluster.resources());
    if (!problem.empty()) {
      report.problems.push_back(problem);
      return;
    }
  }
  replay_arrivals(
      setup.arrivals,
      [&](const adapters::TracePod& pod) -> std::optional<Decision> {
        return scheduler.decide(pod, report);
      },
      mirror, report, progress);
  if (report.problems.empty()) {
    report.view_allocated_milli = scheduler.allocated_milli();
  }
}

}  // namespace unisched::runtime::replay_parts
