#include "adapters/simulated_cluster.hpp"

#include <algorithm>
#include <functional>

#include "adapters/node_shapes.hpp"

namespace unisched::adapters {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

/// Utilisation the background load drifts towards.
constexpr double kTargetUtilisation = 0.5;
/// Names the pods of the simulated background load, apart from placements.
constexpr const char* kBackgroundPrefix = "background-";

}  // namespace

const char* describe(PlacementOutcome outcome) {
  switch (outcome) {
    case PlacementOutcome::Applied:
      return "applied";
    case PlacementOutcome::Pending:
      return "pending";
    case PlacementOutcome::NoSuchNode:
      return "no such node";
    case PlacementOutcome::Unschedulable:
      return "node is not schedulable";
    case PlacementOutcome::DoesNotFit:
      return "does not fit";
    case PlacementOutcome::DuplicateId:
      return "placement id already running";
  }
  return "unknown outcome";
}

SimulatedCluster::SimulatedCluster(model::ClusterResourceProfile profile, SimulationOptions options)
    : profile_(std::move(profile)),
      options_(options),
      // Each cluster gets its own stream from one seed.
      random_(options.seed ^ std::hash<std::string>{}(profile_.spec.cluster_id)) {
  auto built = expand_nodes(profile_, options_.node_count);
  for (size_t i = 0; i < built.size() && i < options_.node_names.size(); ++i) {
    built[i].name = options_.node_names[i];
  }
  for (model::NodeState& node : built) {
    std::string name = node.name;
    nodes_.emplace(std::move(name), std::move(node));
  }
  next_node_ = nodes_.size();
  for (const auto& entry : nodes_) {
    const model::NodeState& node = entry.second;
    if (std::none_of(shapes_.begin(), shapes_.end(), [&](const model::NodeState& shape) {
          return shape.node_group == node.node_group;
        })) {
      shapes_.push_back(node);
    }
  }
  for (const auto& storage : profile_.spec.storage) {
    resources_.storage.push_back({storage.storage_class, storage.capacity.value().value_or(0), 0});
  }
  if (profile_.spec.network.latency) {
    resources_.latency_max_ns = profile_.spec.network.latency->max_nanoseconds();
  }
  if (profile_.spec.network.bandwidth) {
    resources_.bandwidth_bps = profile_.spec.network.bandwidth->bits_per_second();
  }
}

std::vector<model::NodeState> SimulatedCluster::list_nodes() const {
  std::vector<model::NodeState> nodes;
  nodes.reserve(nodes_.size());
  for (const auto& [name, node] : nodes_) {
    nodes.push_back(node);
  }
  return nodes;
}

std::vector<model::NodeChange> SimulatedCluster::poll_changes() {
  step();
  std::vector<model::NodeChange> changes;
  changes.swap(changes_);
  return changes;
}

void SimulatedCluster::step() {
  ++steps_;
  const double seconds = std::chrono::duration<double>(options_.step).count();
  std::poisson_distribution<int> membership(options_.membership_events_per_second * seconds);
  std::poisson_distribution<int> pods(options_.pod_events_per_second * seconds);
  for (int i = membership(random_); i > 0; --i) {
    membership_event();
  }
  const int pod_events = pods(random_);
  if (pod_events == 0) {
    return;
  }
  int64_t allocatable = 0;
  int64_t allocated = 0;
  for (const auto& [name, node] : nodes_) {
    allocatable += node.allocatable_cpu_milli;
    allocated += node.allocated_cpu_milli;
  }
  const double utilisation = allocatable == 0 ? 1.0 : static_cast<double>(allocated) / allocatable;
  const double arrival_chance = utilisation < kTargetUtilisation ? 0.7 : 0.3;
  for (int i = 0; i < pod_events; ++i) {
    if (std::bernoulli_distribution(arrival_chance)(random_)) {
      pod_arrival();
    } else {
      pod_departure();
    }
    storage_event();
  }
}

model::NodeState* SimulatedCluster::random_node() {
  if (nodes_.empty()) {
    return nullptr;
  }
  auto it = nodes_.begin();
  std::advance(it, std::uniform_int_distribution<size_t>(0, nodes_.size() - 1)(random_));
  return &it->second;
}

void SimulatedCluster::membership_event() {
  const int kind = std::uniform_int_distribution<int>(0, 2)(random_);
  model::NodeState* node = random_node();
  if (kind == 0 || node == nullptr) {  // a node joins
    model::NodeState joining =
        shapes_[std::uniform_int_distribution<size_t>(0, shapes_.size() - 1)(random_)];
    joining.name =
        profile_.spec.cluster_id + "-" + joining.node_group + "-" + std::to_string(next_node_++);
    record(model::NodeChangeKind::Add, joining);
    nodes_.emplace(joining.name, std::move(joining));
  } else if (kind == 1 && nodes_.size() > 1) {  // a node leaves, with whatever ran on it
    const std::string name = node->name;
    for (auto pod = pods_.begin(); pod != pods_.end();) {
      pod = pod->second.node == name ? pods_.erase(pod) : std::next(pod);
    }
    record(model::NodeChangeKind::Remove, *node);
    nodes_.erase(name);
  } else {  // a node drains, or comes back from draining
    node->schedulable = !node->schedulable;
    record(model::NodeChangeKind::Update, *node);
  }
}

void SimulatedCluster::pod_arrival() {
  model::NodeState* node = random_node();
  if (node == nullptr || !node->schedulable) {
    return;
  }
  Pod pod;
  pod.node = node->name;
  pod.cpu_milli = std::uniform_int_distribution<int64_t>(1, 16)(random_) * 250;
  pod.memory_bytes = std::uniform_int_distribution<int64_t>(1, 32)(random_) * 256 * kMiB;
  // Some background pods use a device, whole or shared.
  if (!node->devices.empty() && std::bernoulli_distribution(0.3)(random_)) {
    const auto index = std::uniform_int_distribution<int32_t>(
        0, static_cast<int32_t>(node->devices.size()) - 1)(random_);
    pod.devices = {index};
    pod.milli_per_device = std::bernoulli_distribution(0.5)(random_)
                               ? model::kWholeDeviceMilli
                               : std::uniform_int_distribution<int32_t>(1, 9)(random_) * 100;
  }
  if (fits(*node, pod)) {
    place(kBackgroundPrefix + std::to_string(next_pod_++), std::move(pod));
  }
}

void SimulatedCluster::pod_departure() {
  std::vector<std::string> background;
  for (const auto& [id, pod] : pods_) {
    if (id.rfind(kBackgroundPrefix, 0) == 0) {
      background.push_back(id);
    }
  }
  if (!background.empty()) {
    release(background[std::uniform_int_distribution<size_t>(0, background.size() - 1)(random_)]);
  }
}

void SimulatedCluster::storage_event() {
  if (resources_.storage.empty()) {
    return;
  }
  auto& storage = resources_.storage[std::uniform_int_distribution<size_t>(
      0, resources_.storage.size() - 1)(random_)];
  const int64_t step = std::max<int64_t>(storage.capacity_bytes / 1000, 1);
  const int64_t change = std::uniform_int_distribution<int64_t>(-2, 3)(random_) * step;
  storage.used_bytes = std::clamp<int64_t>(storage.used_bytes + change, 0, storage.capacity_bytes);
}

bool SimulatedCluster::fits(const model::NodeState& node, const Pod& pod) const {
  if (model::capacity_shortfall(node, pod.cpu_milli, pod.memory_bytes, pod.host_ports)) {
    return false;
  }
  for (const int32_t index : pod.devices) {  // devices may be shared: check the milli left
    if (index < 0 || static_cast<size_t>(index) >= node.devices.size() ||
        node.devices[static_cast<size_t>(index)].allocated_milli + pod.milli_per_device >
            model::kWholeDeviceMilli) {
      return false;
    }
  }
  return true;
}

void SimulatedCluster::place(const std::string& id, Pod pod) {
  model::NodeState& node = nodes_.at(pod.node);
  node.allocated_cpu_milli += pod.cpu_milli;
  node.allocated_memory_bytes += pod.memory_bytes;
  node.pod_count += 1;
  for (const int32_t index : pod.devices) {
    node.devices[static_cast<size_t>(index)].allocated_milli += pod.milli_per_device;
  }
  auto& ports = node.host_ports_in_use;
  for (const int32_t port : pod.host_ports) {
    ports.insert(std::upper_bound(ports.begin(), ports.end(), port), port);
  }
  record(model::NodeChangeKind::Update, node);
  pods_.emplace(id, std::move(pod));
}

void SimulatedCluster::unplace(const Pod& pod) {
  model::NodeState& node = nodes_.at(pod.node);
  node.allocated_cpu_milli -= pod.cpu_milli;
  node.allocated_memory_bytes -= pod.memory_bytes;
  node.pod_count -= 1;
  for (const int32_t index : pod.devices) {
    node.devices[static_cast<size_t>(index)].allocated_milli -= pod.milli_per_device;
  }
  auto& ports = node.host_ports_in_use;
  for (const int32_t port : pod.host_ports) {
    if (const auto it = std::find(ports.begin(), ports.end(), port); it != ports.end()) {
      ports.erase(it);
    }
  }
  record(model::NodeChangeKind::Update, node);
}

PlacementOutcome SimulatedCluster::apply(const Placement& placement) {
  if (pods_.count(placement.id) != 0) {
    return PlacementOutcome::DuplicateId;
  }
  const auto node = nodes_.find(placement.node);
  if (node == nodes_.end()) {
    return PlacementOutcome::NoSuchNode;
  }
  if (!node->second.schedulable) {
    return PlacementOutcome::Unschedulable;
  }
  Pod pod{placement.node,    placement.cpu_milli,        placement.memory_bytes,
          placement.devices, placement.milli_per_device, placement.host_ports};
  if (!fits(node->second, pod)) {
    return PlacementOutcome::DoesNotFit;
  }
  place(placement.id, std::move(pod));
  return PlacementOutcome::Applied;
}

bool SimulatedCluster::release(const std::string& placement_id) {
  const auto pod = pods_.find(placement_id);
  if (pod == pods_.end()) {
    return false;
  }
  unplace(pod->second);
  pods_.erase(pod);
  return true;
}

std::vector<std::string> SimulatedCluster::running_placements() const {
  std::vector<std::string> ids;
  for (const auto& [id, pod] : pods_) {
    if (id.rfind(kBackgroundPrefix, 0) != 0) {
      ids.push_back(id);
    }
  }
  return ids;
}

void SimulatedCluster::record(model::NodeChangeKind kind, const model::NodeState& node) {
  changes_.push_back(model::NodeChange{kind, node});
}

}  // namespace unisched::adapters
