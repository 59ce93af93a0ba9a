// KubernetesCluster: a real cluster behind the adapter contract, read through its API server.
// Two reflectors keep Nodes and Pods current (list, then watch; relist on 410); a node's state
// is what it offers (kube_objects.hpp) with what its running pods request counted on it.
// poll_changes() reports each node whose state changed since it was last reported, so a relist
// after 410 reaches the centre as the exact difference to the view it holds.
//
// A placement becomes a pod bound to its node (pod_writer.hpp); apply() answers Pending, and the
// pod's own events decide it: Running is applied, Failed (the kubelet's OutOfcpu,
// OutOfnvidia.com/gpu) or a refusal by the API server is refused with that reason, and no answer
// within a minute is refused too. Release deletes the pod; a pod that ends frees its node.
#pragma once

#include <absl/status/statusor.h>

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "adapters/cluster_adapter.hpp"
#include "adapters/kubernetes/kube_objects.hpp"
#include "adapters/kubernetes/kubeconfig.hpp"
#include "adapters/kubernetes/pod_writer.hpp"
#include "adapters/kubernetes/reflector.hpp"

namespace unisched::adapters::kubernetes {

struct KubernetesOptions {
  std::string cluster_id;  ///< a DNS-1123 label
  std::string region;      ///< empty: the nodes' most common region label
  std::string zone;        ///< empty: the nodes' most common zone label
  model::MachineType machine_type = model::MachineType::VirtualMachine;
  ReflectorSettings reflector;
  std::chrono::milliseconds sync_timeout{30000};  ///< for the first lists
};

class KubernetesCluster final : public ClusterAdapter {
 public:
  /// Lists the cluster's nodes and pods and keeps watching them; an error when the first lists
  /// do not complete within `options.sync_timeout` (the last failure says why).
  static absl::StatusOr<std::unique_ptr<KubernetesCluster>> connect(ClusterAccess access,
                                                                    KubernetesOptions options);
  ~KubernetesCluster() override;

  const model::ClusterResourceProfile& profile() const override { return profile_; }
  /// Every node now; later polls report changes from this state on.
  std::vector<model::NodeState> list_nodes() const override;
  std::vector<model::NodeChange> poll_changes() override;
  model::ClusterResources resources() const override { return {}; }
  PlacementOutcome apply(const Placement& placement) override;
  std::vector<LaterOutcome> poll_outcomes() override;
  std::vector<std::string> poll_finished() override;
  /// Deletes the placement's pod, also one an earlier run of the agent created.
  bool release(const std::string& placement_id) override;
  std::vector<std::string> running_placements() const override;
  /// True once after a reflector listed again (a 410, a refused watch, a restarted server).
  bool take_relisted() override;

  /// Why nodes or pods are not kept current (their requests failing for a while), or empty.
  std::string trouble() const override;

  const ReflectorCounters& node_counters() const { return nodes_reflector_->counters(); }
  const ReflectorCounters& pod_counters() const { return pods_reflector_->counters(); }

 private:
  explicit KubernetesCluster(KubernetesOptions options);
  void replace_nodes(std::vector<NodeReading> nodes);
  void apply_node(WatchEventType type, NodeReading node);
  void replace_pods(std::vector<PodReading> pods);
  void apply_pod(WatchEventType type, PodReading pod);
  void forget_pod(const std::string& key);
  model::NodeState effective(const NodeReading& node) const;                // mutex_ held
  void decide(const PodReading& pod);                                       // mutex_ held
  void refuse(const std::string& placement_id, const std::string& reason);  // mutex_ held
  void note_if_finished(WatchEventType type, const PodReading& pod);        // mutex_ held
  void describe_cluster();

  KubernetesOptions options_;
  model::ClusterResourceProfile profile_;
  mutable std::mutex mutex_;
  std::map<std::string, NodeReading> nodes_;
  std::map<std::string, PodReading> pods_;
  std::map<std::string, std::set<std::string>> pods_by_node_;
  mutable std::set<std::string> dirty_;                       // nodes to compare and report
  mutable std::map<std::string, model::NodeState> reported_;  // as last reported
  std::map<std::string, std::chrono::steady_clock::time_point> pending_;  // id -> answer due
  std::map<std::string, std::pair<std::string, std::string>> pod_of_;     // id -> namespace, name
  std::vector<LaterOutcome> outcomes_;
  std::vector<std::string> finished_;  // placed pods that ended by themselves, to report
  bool nodes_listed_ = false;
  bool pods_listed_ = false;
  bool relisted_ = false;  // a list after the first, not yet taken
  std::unique_ptr<Reflector<NodeReading>> nodes_reflector_;
  std::unique_ptr<Reflector<PodReading>> pods_reflector_;
  std::unique_ptr<PodWriter> writer_;
};

}  // namespace unisched::adapters::kubernetes
