#include "adapters/kubernetes/kubernetes_cluster.hpp"

#include <spdlog/spdlog.h>

#include <thread>

namespace unisched::adapters::kubernetes {
namespace {

/// The most common value of `key` among the nodes' labels; empty when none has it.
std::string most_common(const std::map<std::string, NodeReading>& nodes, const std::string& key) {
  std::map<std::string, size_t> counts;
  for (const auto& [name, reading] : nodes) {
    if (const auto found = reading.node.labels.find(key); found != reading.node.labels.end()) {
      ++counts[found->second];
    }
  }
  std::string best;
  size_t most = 0;
  for (const auto& [value, count] : counts) {
    if (count > most) {
      best = value;
      most = count;
    }
  }
  return best;
}

}  // namespace

KubernetesCluster::KubernetesCluster(KubernetesOptions options) : options_(std::move(options)) {}

KubernetesCluster::~KubernetesCluster() {
  // The reflectors' threads call into this object: they stop first.
  pods_reflector_.reset();
  nodes_reflector_.reset();
}

absl::StatusOr<std::unique_ptr<KubernetesCluster>> KubernetesCluster::connect(
    ClusterAccess access, KubernetesOptions options) {
  std::unique_ptr<KubernetesCluster> cluster(new KubernetesCluster(std::move(options)));
  KubernetesCluster* self = cluster.get();
  cluster->nodes_reflector_ = std::make_unique<Reflector<NodeReading>>(
      access, "/api/v1/nodes", "nodes",
      Reflector<NodeReading>::Sink{
          [self](std::vector<NodeReading> nodes) { self->replace_nodes(std::move(nodes)); },
          [self](WatchEventType type, NodeReading node) {
            self->apply_node(type, std::move(node));
          }},
      self->options_.reflector);
  cluster->pods_reflector_ = std::make_unique<Reflector<PodReading>>(
      access, "/api/v1/pods", "pods",
      Reflector<PodReading>::Sink{
          [self](std::vector<PodReading> pods) { self->replace_pods(std::move(pods)); },
          [self](WatchEventType type, PodReading pod) { self->apply_pod(type, std::move(pod)); }},
      self->options_.reflector);
  const auto deadline = std::chrono::steady_clock::now() + self->options_.sync_timeout;
  while (!(cluster->nodes_reflector_->synced() && cluster->pods_reflector_->synced())) {
    if (std::chrono::steady_clock::now() > deadline) {
      return absl::UnavailableError("the API server at " + access.server +
                                    " did not list nodes and pods in time (see the warnings)");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  cluster->describe_cluster();
  return cluster;
}

void KubernetesCluster::describe_cluster() {
  std::lock_guard<std::mutex> guard(mutex_);
  profile_.metadata.name = options_.cluster_id;
  profile_.spec.cluster_id = options_.cluster_id;
  profile_.spec.machine_type = options_.machine_type;
  profile_.spec.topology.region = options_.region.empty()
                                      ? most_common(nodes_, "topology.kubernetes.io/region")
                                      : options_.region;
  profile_.spec.topology.zone =
      options_.zone.empty() ? most_common(nodes_, "topology.kubernetes.io/zone") : options_.zone;
  profile_.spec.kubernetes_version = most_common(nodes_, "unisched.io/kubelet-version");
  profile_.spec.node_count = static_cast<int64_t>(nodes_.size());
  spdlog::info("kubernetes: cluster {}: {} nodes, {} pods, region {:?}, zone {:?}, kubelet {}",
               options_.cluster_id, nodes_.size(), pods_.size(), profile_.spec.topology.region,
               profile_.spec.topology.zone, profile_.spec.kubernetes_version);
}

void KubernetesCluster::replace_nodes(std::vector<NodeReading> nodes) {
  std::lock_guard<std::mutex> guard(mutex_);
  for (const auto& [name, reading] : nodes_) {
    dirty_.insert(name);
  }
  nodes_.clear();
  for (NodeReading& reading : nodes) {
    for (const std::string& note : reading.notes) {
      spdlog::info("kubernetes: node {}: {}", reading.node.name, note);
    }
    dirty_.insert(reading.node.name);
    nodes_[reading.node.name] = std::move(reading);
  }
}

void KubernetesCluster::apply_node(WatchEventType type, NodeReading node) {
  std::lock_guard<std::mutex> guard(mutex_);
  dirty_.insert(node.node.name);
  if (type == WatchEventType::Deleted) {
    nodes_.erase(node.node.name);
  } else {
    nodes_[node.node.name] = std::move(node);
  }
}

void KubernetesCluster::forget_pod(const std::string& key) {
  const auto found = pods_.find(key);
  if (found == pods_.end()) {
    return;
  }
  if (!found->second.node.empty()) {
    dirty_.insert(found->second.node);
    pods_by_node_[found->second.node].erase(key);
  }
  pods_.erase(found);
}

void KubernetesCluster::replace_pods(std::vector<PodReading> pods) {
  std::lock_guard<std::mutex> guard(mutex_);
  for (const auto& [node, keys] : pods_by_node_) {
    dirty_.insert(node);
  }
  pods_.clear();
  pods_by_node_.clear();
  for (PodReading& pod : pods) {
    if (!pod.node.empty()) {
      dirty_.insert(pod.node);
      pods_by_node_[pod.node].insert(pod.key);
    }
    pods_[pod.key] = std::move(pod);
  }
}

void KubernetesCluster::apply_pod(WatchEventType type, PodReading pod) {
  std::lock_guard<std::mutex> guard(mutex_);
  forget_pod(pod.key);
  if (type == WatchEventType::Deleted) {
    return;
  }
  if (!pod.node.empty()) {
    dirty_.insert(pod.node);
    pods_by_node_[pod.node].insert(pod.key);
  }
  pods_[pod.key] = std::move(pod);
}

model::NodeState KubernetesCluster::effective(const NodeReading& node) const {
  std::vector<const PodReading*> pods;
  if (const auto found = pods_by_node_.find(node.node.name); found != pods_by_node_.end()) {
    for (const std::string& key : found->second) {
      pods.push_back(&pods_.at(key));
    }
  }
  return with_pods(node.node, pods);
}

std::vector<model::NodeState> KubernetesCluster::list_nodes() const {
  std::lock_guard<std::mutex> guard(mutex_);
  std::vector<model::NodeState> nodes;
  reported_.clear();
  for (const auto& [name, reading] : nodes_) {
    nodes.push_back(effective(reading));
    reported_[name] = nodes.back();
  }
  dirty_.clear();
  return nodes;
}

std::vector<model::NodeChange> KubernetesCluster::poll_changes() {
  std::lock_guard<std::mutex> guard(mutex_);
  std::vector<model::NodeChange> changes;
  for (const std::string& name : dirty_) {
    const auto node = nodes_.find(name);
    const auto was = reported_.find(name);
    if (node == nodes_.end()) {
      if (was != reported_.end()) {
        changes.push_back({model::NodeChangeKind::Remove, was->second});
        reported_.erase(was);
      }
      continue;
    }
    model::NodeState now = effective(node->second);
    if (was == reported_.end()) {
      changes.push_back({model::NodeChangeKind::Add, now});
      reported_.emplace(name, std::move(now));
    } else if (was->second != now) {
      changes.push_back({model::NodeChangeKind::Update, now});
      was->second = std::move(now);
    }
  }
  dirty_.clear();
  return changes;
}

PlacementOutcome KubernetesCluster::apply(const Placement& placement) {
  // A view only: the centre sends no placements here (takes_placements() is false).
  spdlog::error(
      "kubernetes: cluster {}: placement {} refused: this adapter carries out no "
      "placements yet",
      options_.cluster_id, placement.id);
  return PlacementOutcome::Unschedulable;
}

bool KubernetesCluster::release(const std::string&) {
  return false;
}

}  // namespace unisched::adapters::kubernetes
