#include "adapters/kubernetes/kubernetes_cluster.hpp"

#include <spdlog/spdlog.h>

#include <thread>
#include <utility>

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

/// A live pod of a placement unisched made: what release() deletes and running_placements() lists.
bool holds_placement(const PodReading& pod) {
  return !pod.placement_id.empty() && !pod.terminated() && !pod.deleted;
}

}  // namespace

KubernetesCluster::KubernetesCluster(KubernetesOptions options) : options_(std::move(options)) {}

KubernetesCluster::~KubernetesCluster() {
  // The writer's and the reflectors' threads call into this object: they stop first.
  writer_.reset();
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
  cluster->writer_ =
      std::make_unique<PodWriter>(access, [self](const std::string& id, const std::string& reason) {
        std::lock_guard<std::mutex> guard(self->mutex_);
        self->refuse(id, reason);
      });
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
  relisted_ = relisted_ || nodes_listed_;
  nodes_listed_ = true;
  for (const auto& [name, reading] : nodes_) {
    dirty_.insert(name);
  }
  nodes_.clear();
  for (NodeReading& reading : nodes) {
    for (const std::string& note : reading.notes) {
      spdlog::info("kubernetes: node {}: {}", reading.node.name, note);
    }
    dirty_.insert(reading.node.name);
    const auto [held, added] = nodes_.try_emplace(reading.node.name);
    if (!added) {
      // Names are unique in a sound API server: one answering otherwise is broken or hostile.
      spdlog::warn("kubernetes: node {}: listed more than once; the last one listed is kept",
                   reading.node.name);
    }
    held->second = std::move(reading);
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
  relisted_ = relisted_ || pods_listed_;
  pods_listed_ = true;
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
    decide(pod);
    pods_[pod.key] = std::move(pod);
  }
}

void KubernetesCluster::apply_pod(WatchEventType type, PodReading pod) {
  std::lock_guard<std::mutex> guard(mutex_);
  forget_pod(pod.key);
  note_if_finished(type, pod);
  if (type == WatchEventType::Deleted) {
    return;
  }
  if (!pod.node.empty()) {
    dirty_.insert(pod.node);
    pods_by_node_[pod.node].insert(pod.key);
  }
  decide(pod);
  pods_[pod.key] = std::move(pod);
}

void KubernetesCluster::decide(const PodReading& pod) {
  if (pod.placement_id.empty() || pending_.count(pod.placement_id) == 0) {
    return;
  }
  if (pod.phase == "Running" || pod.phase == "Succeeded") {
    pending_.erase(pod.placement_id);
    outcomes_.push_back({pod.placement_id, PlacementOutcome::Applied, {}});
  } else if (pod.phase == "Failed") {
    refuse(pod.placement_id, pod.failure);
    const auto where = pod_of_.find(pod.placement_id);
    if (where != pod_of_.end()) {
      writer_->remove(where->second.first, where->second.second);  // nothing runs; tidy up
      pod_of_.erase(where);
    }
  }
}

/// A pod of a placement that ran (no longer pending) and has now completed, failed or been
/// deleted by someone else: the placement's work ended by itself.
void KubernetesCluster::note_if_finished(WatchEventType type, const PodReading& pod) {
  if (pod.placement_id.empty() || pending_.count(pod.placement_id) != 0) {
    return;
  }
  const bool ended =
      type == WatchEventType::Deleted || pod.phase == "Succeeded" || pod.phase == "Failed";
  if (ended && pod_of_.erase(pod.placement_id) != 0) {
    finished_.push_back(pod.placement_id);
  }
}

std::vector<std::string> KubernetesCluster::poll_finished() {
  std::lock_guard<std::mutex> guard(mutex_);
  return std::exchange(finished_, {});
}

void KubernetesCluster::refuse(const std::string& placement_id, const std::string& reason) {
  if (pending_.erase(placement_id) != 0) {
    outcomes_.push_back({placement_id, PlacementOutcome::DoesNotFit, reason});
  }
}

model::NodeState KubernetesCluster::effective(const NodeReading& node) const {
  std::vector<const PodReading*> pods;
  if (const auto found = pods_by_node_.find(node.node.name); found != pods_by_node_.end()) {
    for (const std::string& key : found->second) {
      pods.push_back(&pods_.at(key));
    }
  }
  std::vector<std::string> warnings;
  model::NodeState counted = with_pods(node.node, pods, warnings);
  for (const std::string& warning : warnings) {
    spdlog::warn("kubernetes: {}", warning);
  }
  return counted;
}

std::string KubernetesCluster::trouble() const {
  std::string nodes = nodes_reflector_->trouble();
  const std::string pods = pods_reflector_->trouble();
  if (!nodes.empty() && !pods.empty()) {
    nodes += "; ";
  }
  return nodes + pods;
}

bool KubernetesCluster::take_relisted() {
  std::lock_guard<std::mutex> guard(mutex_);
  return std::exchange(relisted_, false);
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
  std::lock_guard<std::mutex> guard(mutex_);
  const auto node = nodes_.find(placement.node);
  if (node == nodes_.end()) {
    return PlacementOutcome::NoSuchNode;
  }
  if (pending_.count(placement.id) != 0 || pod_of_.count(placement.id) != 0) {
    return PlacementOutcome::DuplicateId;
  }
  auto pod = pod_for(placement, node->second.node);
  pending_[placement.id] = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  if (!pod) {
    refuse(placement.id, pod.error());  // said with its reason at the next poll
    return PlacementOutcome::Pending;
  }
  pod_of_[placement.id] = {pod->namespace_name, pod->name};
  writer_->create(placement.id, std::move(pod.value()));
  return PlacementOutcome::Pending;
}

std::vector<LaterOutcome> KubernetesCluster::poll_outcomes() {
  std::lock_guard<std::mutex> guard(mutex_);
  const auto now = std::chrono::steady_clock::now();
  std::vector<std::string> overdue;
  for (const auto& [id, due] : pending_) {
    if (due < now) {
      overdue.push_back(id);
    }
  }
  for (const std::string& id : overdue) {
    refuse(id, "the cluster gave no answer within a minute");
  }
  return std::move(outcomes_);
}

bool KubernetesCluster::release(const std::string& placement_id) {
  std::lock_guard<std::mutex> guard(mutex_);
  pending_.erase(placement_id);
  const auto where = pod_of_.find(placement_id);
  if (where != pod_of_.end()) {
    writer_->remove(where->second.first, where->second.second);
    pod_of_.erase(where);
    return true;
  }
  // A pod an earlier run of the agent created: found by its annotation among the pods watched.
  for (const auto& [key, pod] : pods_) {
    if (pod.placement_id == placement_id && holds_placement(pod)) {
      const size_t slash = key.find('/');
      writer_->remove(key.substr(0, slash), key.substr(slash + 1));
      return true;
    }
  }
  return false;
}

std::vector<std::string> KubernetesCluster::running_placements() const {
  std::lock_guard<std::mutex> guard(mutex_);
  std::set<std::string> ids;
  for (const auto& [id, due] : pending_) {
    ids.insert(id);
  }
  for (const auto& [key, pod] : pods_) {
    if (holds_placement(pod)) {
      ids.insert(pod.placement_id);
    }
  }
  return {ids.begin(), ids.end()};
}

}  // namespace unisched::adapters::kubernetes
