#include "messages/convert.hpp"

#include <absl/container/flat_hash_set.h>

#include <string>
#include <tuple>

#include "model/accelerator_names.hpp"
#include "model/printable.hpp"

namespace unisched::messages {
namespace {

void to_proto(const model::NodeState& node, v1::NodeState& out) {
  out.set_name(node.name);
  out.set_node_group(node.node_group);
  out.set_allocatable_cpu_milli(node.allocatable_cpu_milli);
  out.set_allocatable_memory_bytes(node.allocatable_memory_bytes);
  out.set_max_pods(node.max_pods);
  out.set_allocated_cpu_milli(node.allocated_cpu_milli);
  out.set_allocated_memory_bytes(node.allocated_memory_bytes);
  out.set_pod_count(node.pod_count);
  for (const model::Device& device : node.devices) {
    v1::Accelerator& accelerator = *out.add_accelerators();
    accelerator.set_model(device.model);
    accelerator.set_memory_bytes(device.memory_bytes);
    accelerator.set_topology_group(device.topology_group);
    accelerator.set_interconnect(messages::to_proto(device.interconnect));
    accelerator.set_allocated_milli(device.allocated_milli);
    accelerator.set_type(static_cast<v1::AcceleratorType>(device.type));
    accelerator.set_resource(device.resource);
    accelerator.set_link_generation(device.link_generation);
  }
  out.mutable_host_ports_in_use()->Add(node.host_ports_in_use.begin(),
                                       node.host_ports_in_use.end());
  out.mutable_labels()->insert(node.labels.begin(), node.labels.end());
  for (const model::Taint& taint : node.taints) {
    v1::Taint& t = *out.add_taints();
    t.set_key(taint.key);
    t.set_value(taint.value);
    t.set_effect(taint.effect);
  }
  out.set_schedulable(node.schedulable);
}

void to_proto(const model::ClusterResources& resources, v1::ClusterResources& out) {
  for (const model::StorageUsage& storage : resources.storage) {
    v1::StorageUsage& s = *out.add_storage();
    s.set_storage_class(storage.storage_class);
    s.set_capacity_bytes(storage.capacity_bytes);
    s.set_used_bytes(storage.used_bytes);
  }
  if (resources.latency_max_ns) {
    out.set_latency_max_ns(*resources.latency_max_ns);
  }
  if (resources.bandwidth_bps) {
    out.set_bandwidth_bps(*resources.bandwidth_bps);
  }
}

namespace {

std::optional<model::Interconnect> from_proto(v1::Interconnect link) {
  switch (link) {
    case v1::PCIE:
      return model::Interconnect::PCIe;
    case v1::NVLINK:
      return model::Interconnect::NVLink;
    case v1::NVSWITCH:
      return model::Interconnect::NVSwitch;
    case v1::XGMI:
      return model::Interconnect::XGMI;
    case v1::ICI:
      return model::Interconnect::ICI;
    default:
      return std::nullopt;
  }
}

/// Whether `resource` is a resource name, with the reason when it is not. Each thread notes
/// the names it found good: a node's devices, and a cluster's nodes, repeat one name.
std::optional<std::string> resource_refusal(const model::Symbol& resource) {
  thread_local absl::flat_hash_set<const std::string*> good;
  if (resource.empty() || good.count(&resource.str()) > 0) {
    return std::nullopt;
  }
  const auto kind = model::parse_accelerator_type(resource.str());
  if (!kind || kind->resource.empty()) {
    return "resource: " + model::quoted_brief(resource.str()) + ": " +
           (kind ? std::string("must be a resource name, not a kind") : kind.error());
  }
  good.insert(&resource.str());
  return std::nullopt;
}

/// One device from the wire, or the field that is wrong and why (without the node's path).
std::optional<std::string> from_proto(const v1::Accelerator& accelerator, model::Device& device) {
  return device_from_wire(
      {accelerator.model(), accelerator.resource(), accelerator.memory_bytes(), accelerator.type(),
       accelerator.interconnect(), accelerator.topology_group(), accelerator.allocated_milli(),
       accelerator.link_generation()},
      device);
}

}  // namespace

std::optional<std::string> from_proto(const v1::NodeState& node, const std::string& path,
                                      model::NodeState& out) {
  out.name = node.name();
  out.node_group = node.node_group();
  out.allocatable_cpu_milli = node.allocatable_cpu_milli();
  out.allocatable_memory_bytes = node.allocatable_memory_bytes();
  out.max_pods = node.max_pods();
  out.allocated_cpu_milli = node.allocated_cpu_milli();
  out.allocated_memory_bytes = node.allocated_memory_bytes();
  out.pod_count = node.pod_count();
  out.devices.reserve(static_cast<size_t>(node.accelerators_size()));
  for (int i = 0; i < node.accelerators_size(); ++i) {
    model::Device device;
    if (auto refusal = from_proto(node.accelerators(i), device)) {
      return path + ".accelerators[" + std::to_string(i) + "]." + *refusal;
    }
    out.devices.push_back(std::move(device));
  }
  out.host_ports_in_use.assign(node.host_ports_in_use().begin(), node.host_ports_in_use().end());
  out.labels = model::NodeLabels::Map(node.labels().begin(), node.labels().end());
  for (const v1::Taint& taint : node.taints()) {
    out.taints.push_back(model::Taint{taint.key(), taint.value(), taint.effect()});
  }
  out.schedulable = node.schedulable();
  return std::nullopt;
}

model::ClusterResources from_proto(const v1::ClusterResources& resources) {
  model::ClusterResources out;
  for (const v1::StorageUsage& storage : resources.storage()) {
    out.storage.push_back(
        {storage.storage_class(), storage.capacity_bytes(), storage.used_bytes()});
  }
  if (resources.has_latency_max_ns()) {
    out.latency_max_ns = resources.latency_max_ns();
  }
  if (resources.has_bandwidth_bps()) {
    out.bandwidth_bps = resources.bandwidth_bps();
  }
  return out;
}

model::HealthState from_proto(v1::HealthState state) {
  switch (state) {
    case v1::HEALTHY:
      return model::HealthState::Healthy;
    case v1::DEGRADED:
      return model::HealthState::Degraded;
    case v1::UNHEALTHY:
      return model::HealthState::Unhealthy;
    default:
      return model::HealthState::Unknown;
  }
}

v1::HealthState to_proto(model::HealthState state) {
  switch (state) {
    case model::HealthState::Healthy:
      return v1::HEALTHY;
    case model::HealthState::Degraded:
      return v1::DEGRADED;
    case model::HealthState::Unhealthy:
      return v1::UNHEALTHY;
    case model::HealthState::Unknown:
      break;
  }
  return v1::HEALTH_UNKNOWN;
}

void to_proto(const std::vector<std::pair<std::string, std::string>>& refused,
              google::protobuf::RepeatedPtrField<v1::RefusedPlacement>& out) {
  for (const auto& [id, reason] : refused) {
    v1::RefusedPlacement& r = *out.Add();
    r.set_id(id);
    r.set_reason(reason);
  }
}

std::vector<std::pair<std::string, std::string>> from_proto(
    const google::protobuf::RepeatedPtrField<v1::RefusedPlacement>& refused) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& r : refused) {
    out.emplace_back(r.id(), r.reason());
  }
  return out;
}

}  // namespace

v1::Interconnect to_proto(model::Interconnect link) {
  switch (link) {
    case model::Interconnect::PCIe:
      return v1::PCIE;
    case model::Interconnect::NVLink:
      return v1::NVLINK;
    case model::Interconnect::NVSwitch:
      return v1::NVSWITCH;
    case model::Interconnect::XGMI:
      return v1::XGMI;
    case model::Interconnect::ICI:
      return v1::ICI;
  }
  return v1::PCIE;
}

v1::NodeDelta::Op to_proto(model::NodeChangeKind kind) {
  switch (kind) {
    case model::NodeChangeKind::Add:
      return v1::NodeDelta::ADD;
    case model::NodeChangeKind::Update:
      return v1::NodeDelta::UPDATE;
    case model::NodeChangeKind::Remove:
      break;
  }
  return v1::NodeDelta::REMOVE;
}

bool sent_as_usage(const model::SharedNodeChange& change) {
  return change.usage_only && change.kind == model::NodeChangeKind::Update;
}

std::optional<std::string> delta_form_refusal(const v1::NodeDelta& delta) {
  if (delta.op() == v1::NodeDelta::USAGE) {
    if (delta.has_node()) {
      return std::string(".node: must be absent with op USAGE (the node's usage is in .usage)");
    }
    return std::nullopt;
  }
  if (!change_kind_of(delta.op())) {
    return ".op: must be ADD, UPDATE, REMOVE or USAGE, got " + std::to_string(delta.op());
  }
  if (delta.has_usage()) {
    return ".usage: must be absent with op " + v1::NodeDelta::Op_Name(delta.op());
  }
  return std::nullopt;
}

void to_proto(const model::NodeUsage& usage, v1::NodeUsage& out) {
  out.set_name(usage.name);
  out.set_allocated_cpu_milli(usage.allocated_cpu_milli);
  out.set_allocated_memory_bytes(usage.allocated_memory_bytes);
  out.set_pod_count(usage.pod_count);
  out.mutable_device_allocated_milli()->Add(usage.device_allocated_milli.begin(),
                                            usage.device_allocated_milli.end());
  out.mutable_host_ports_in_use()->Add(usage.host_ports_in_use.begin(),
                                       usage.host_ports_in_use.end());
}

model::NodeUsage from_proto(const v1::NodeUsage& usage) {
  model::NodeUsage out;
  out.name = usage.name();
  out.allocated_cpu_milli = usage.allocated_cpu_milli();
  out.allocated_memory_bytes = usage.allocated_memory_bytes();
  out.pod_count = usage.pod_count();
  out.device_allocated_milli.assign(usage.device_allocated_milli().begin(),
                                    usage.device_allocated_milli().end());
  out.host_ports_in_use.assign(usage.host_ports_in_use().begin(), usage.host_ports_in_use().end());
  return out;
}

std::optional<model::NodeChangeKind> change_kind_of(int32_t op) {
  switch (op) {
    case v1::NodeDelta::ADD:
      return model::NodeChangeKind::Add;
    case v1::NodeDelta::UPDATE:
      return model::NodeChangeKind::Update;
    case v1::NodeDelta::REMOVE:
      return model::NodeChangeKind::Remove;
    default:
      return std::nullopt;
  }
}

std::optional<std::string> device_from_wire(const DeviceFields& fields, model::Device& device) {
  if (fields.type < v1::GPU || fields.type > v1::OTHER) {
    return "type: unknown value " + std::to_string(fields.type);
  }
  const auto interconnect = from_proto(static_cast<v1::Interconnect>(fields.interconnect));
  if (!interconnect) {
    return "interconnect: unknown value " + std::to_string(fields.interconnect);
  }
  device.resource = model::Symbol(fields.resource);
  if (auto refusal = resource_refusal(device.resource)) {
    return refusal;
  }
  // Each kept in 16 bits by the device: checked here, so that the casts below cut nothing.
  const std::tuple<const char*, int32_t, int32_t> bounded[] = {
      {"link_generation", fields.link_generation, model::kMaxLinkGeneration},
      {"topology_group", fields.topology_group, model::kMaxTopologyGroup},
      {"allocated_milli", fields.allocated_milli, model::kMaxDeviceAllocatedMilli},
  };
  for (const auto& [field, value, most] : bounded) {
    if (value < 0 || value > most) {
      return std::string(field) + ": " + std::to_string(value) + " is not between 0 and " +
             std::to_string(most);
    }
  }
  device.type = static_cast<model::AcceleratorType>(fields.type);
  device.model = model::Symbol(fields.model);
  device.memory_bytes = fields.memory_bytes;
  device.topology_group = static_cast<int16_t>(fields.topology_group);
  device.interconnect = *interconnect;
  device.link_generation = static_cast<int16_t>(fields.link_generation);
  device.allocated_milli = static_cast<int16_t>(fields.allocated_milli);
  return std::nullopt;
}

void to_proto(const model::Reservation& reservation, v1::Placement& out) {
  out.set_id(reservation.id);
  out.set_node(reservation.node);
  out.set_cpu_milli(reservation.cpu_milli);
  out.set_memory_bytes(reservation.memory_bytes);
  out.mutable_devices()->Add(reservation.devices.begin(), reservation.devices.end());
  out.mutable_device_milli()->Add(reservation.device_milli.begin(), reservation.device_milli.end());
  out.mutable_host_ports()->Add(reservation.host_ports.begin(), reservation.host_ports.end());
  out.set_pod_template(reservation.pod_template);
}

model::Reservation from_proto(const v1::Placement& placement) {
  model::Reservation reservation;
  reservation.id = placement.id();
  reservation.node = placement.node();
  reservation.cpu_milli = placement.cpu_milli();
  reservation.memory_bytes = placement.memory_bytes();
  reservation.devices.assign(placement.devices().begin(), placement.devices().end());
  reservation.device_milli.assign(placement.device_milli().begin(), placement.device_milli().end());
  reservation.host_ports.assign(placement.host_ports().begin(), placement.host_ports().end());
  reservation.pod_template = placement.pod_template();
  return reservation;
}

v1::IncrementalUpdate to_proto(const model::ViewUpdate& update) {
  v1::IncrementalUpdate out;
  to_proto(update, out);
  return out;
}

void to_proto(const model::ViewUpdate& update, v1::IncrementalUpdate& out) {
  out.set_cluster_id(update.cluster_id);
  out.set_epoch(update.epoch);
  out.set_base_version(update.base_version);
  out.set_version(update.version);
  after_changes_to_proto(update, out);
  out.mutable_node_deltas()->Reserve(
      static_cast<int>(update.changes.size() + update.usage_changes.size()));
  for (const model::SharedNodeChange& change : update.changes) {
    v1::NodeDelta& delta = *out.add_node_deltas();
    if (sent_as_usage(change)) {
      delta.set_op(v1::NodeDelta::USAGE);
      to_proto(model::usage_of(*change.node), *delta.mutable_usage());
      continue;
    }
    delta.set_op(to_proto(change.kind));
    if (change.kind == model::NodeChangeKind::Remove) {
      delta.mutable_node()->set_name(change.node->name);  // of a removal only the name travels
      continue;
    }
    to_proto(*change.node, *delta.mutable_node());
  }
  for (const model::NodeUsage& usage : update.usage_changes) {
    v1::NodeDelta& delta = *out.add_node_deltas();
    delta.set_op(v1::NodeDelta::USAGE);
    to_proto(usage, *delta.mutable_usage());
  }
}

void after_changes_to_proto(const model::ViewUpdate& update, v1::IncrementalUpdate& out) {
  if (update.resources) {
    to_proto(*update.resources, *out.mutable_resource_delta()->mutable_resources());
  }
  out.mutable_health_status()->set_cluster_id(update.cluster_id);
  out.mutable_health_status()->set_state(to_proto(update.health));
  out.mutable_health_status()->set_epoch(update.epoch);
  out.mutable_health_status()->set_version(update.version);
  for (const std::string& id : update.finished_placements) {
    out.add_finished_placements(id);
  }
  for (const std::string& id : update.applied_placements) {
    out.add_applied_placements(id);
  }
  to_proto(update.refused_placements, *out.mutable_refused_placements());
}

v1::ClusterSnapshot to_proto(const model::ViewSnapshot& snapshot) {
  v1::ClusterSnapshot out;
  to_proto(snapshot, out);
  return out;
}

void to_proto(const model::ViewSnapshot& snapshot, v1::ClusterSnapshot& out) {
  out.set_cluster_id(snapshot.cluster_id);
  out.set_epoch(snapshot.epoch);
  out.set_version(snapshot.version);
  out.mutable_nodes()->Reserve(static_cast<int>(snapshot.nodes.size()));
  for (const auto& node : snapshot.nodes) {
    to_proto(*node, *out.add_nodes());
  }
  to_proto(snapshot.resources, *out.mutable_resources());
  for (const std::string& id : snapshot.applied_placements) {
    out.add_applied_placements(id);
  }
  to_proto(snapshot.refused_placements, *out.mutable_refused_placements());
  out.mutable_finished_placements()->Add(snapshot.finished_placements.begin(),
                                         snapshot.finished_placements.end());
  out.mutable_node_revisions()->insert(snapshot.node_revisions.begin(),
                                       snapshot.node_revisions.end());
  out.set_agent_version(snapshot.agent_version);
}

namespace {

/// A node whose state has a field the model cannot hold: the centre leaves it out by name
/// (model::NodeAdmission) instead of refusing everything that came with it.
model::LeftOutNode unread_node(const std::string& name, const std::string& problem) {
  return {name, "node " + model::quoted_brief(name) + ": " + problem + "; the node is left out"};
}

}  // namespace

std::string too_many_node_deltas(int count) {
  return "node_deltas: Too many: " + std::to_string(count) + ": must have at most " +
         std::to_string(model::kMaxNodeChangesPerUpdate) +
         " items (split the changes over consecutive updates, or send a full snapshot)";
}

model::Expected<model::ViewUpdate, std::string> from_proto(const v1::IncrementalUpdate& update) {
  if (static_cast<size_t>(update.node_deltas_size()) > model::kMaxNodeChangesPerUpdate) {
    return too_many_node_deltas(update.node_deltas_size());
  }
  model::ViewUpdate out;
  out.cluster_id = update.cluster_id();
  out.epoch = update.epoch();
  out.base_version = update.base_version();
  out.version = update.version();
  out.changes.reserve(static_cast<size_t>(update.node_deltas_size()));
  for (int i = 0; i < update.node_deltas_size(); ++i) {
    const v1::NodeDelta& delta = update.node_deltas(i);
    const std::string path = "node_deltas[" + std::to_string(i) + "]";
    if (auto problem = delta_form_refusal(delta)) {
      return path + *problem;
    }
    if (delta.op() == v1::NodeDelta::USAGE) {
      out.usage_changes.push_back(from_proto(delta.usage()));
      continue;
    }
    model::NodeChange change;
    change.kind = *change_kind_of(delta.op());
    if (auto problem = from_proto(delta.node(), path + ".node", change.node)) {
      if (delta.node().name().empty()) {
        return *problem;
      }
      out.left_out.push_back(unread_node(delta.node().name(), *problem));
      continue;
    }
    out.changes.push_back(model::share(std::move(change)));
  }
  if (update.has_resource_delta() && update.resource_delta().has_resources()) {
    out.resources = from_proto(update.resource_delta().resources());
  }
  out.health = from_proto(update.health_status().state());
  out.applied_placements.assign(update.applied_placements().begin(),
                                update.applied_placements().end());
  out.finished_placements.assign(update.finished_placements().begin(),
                                 update.finished_placements().end());
  out.refused_placements = from_proto(update.refused_placements());
  return out;
}

model::Expected<model::ViewSnapshot, std::string> from_proto(const v1::ClusterSnapshot& snapshot) {
  model::ViewSnapshot out;
  out.cluster_id = snapshot.cluster_id();
  out.epoch = snapshot.epoch();
  out.version = snapshot.version();
  out.nodes.reserve(static_cast<size_t>(snapshot.nodes_size()));
  for (int i = 0; i < snapshot.nodes_size(); ++i) {
    model::NodeState node;
    if (auto problem = from_proto(snapshot.nodes(i), "nodes[" + std::to_string(i) + "]", node)) {
      if (node.name.empty()) {
        return *problem;
      }
      out.left_out.push_back(unread_node(node.name, *problem));
      continue;
    }
    out.nodes.push_back(std::make_shared<const model::NodeState>(std::move(node)));
  }
  out.resources = from_proto(snapshot.resources());
  out.applied_placements.assign(snapshot.applied_placements().begin(),
                                snapshot.applied_placements().end());
  out.refused_placements = from_proto(snapshot.refused_placements());
  out.finished_placements.assign(snapshot.finished_placements().begin(),
                                 snapshot.finished_placements().end());
  out.node_revisions.insert(snapshot.node_revisions().begin(), snapshot.node_revisions().end());
  out.agent_version = snapshot.agent_version();
  return out;
}

}  // namespace unisched::messages
