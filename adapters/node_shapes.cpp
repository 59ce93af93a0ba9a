#include "adapters/node_shapes.hpp"

namespace unisched::adapters {
namespace {

/// Devices of one node: linked devices (NVLink, NVSwitch, XGMI) share one topology group per
/// accelerator entry; PCIe devices each stand alone.
void add_devices(const model::AcceleratorSpec& spec, int64_t count, model::NodeState& node) {
  const int32_t linked_group = static_cast<int32_t>(node.devices.size());
  for (int64_t i = 0; i < count; ++i) {
    model::Device device;
    device.type = spec.type;
    device.resource = spec.resource;
    device.model = spec.model;
    device.memory_bytes = spec.memory_per_device.value().value_or(0);
    device.interconnect = spec.topology;
    device.link_generation = spec.link_generation;
    device.topology_group = spec.topology == model::Interconnect::PCIe
                                ? static_cast<int32_t>(node.devices.size())
                                : linked_group;
    node.devices.push_back(std::move(device));
  }
}

std::map<std::string, std::string> topology_labels(const model::ClusterProfileSpec& spec,
                                                   const std::string& zone) {
  std::map<std::string, std::string> labels;
  if (!spec.topology.region.empty()) {
    labels["topology.kubernetes.io/region"] = spec.topology.region;
  }
  if (!zone.empty()) {
    labels["topology.kubernetes.io/zone"] = zone;
  }
  return labels;
}

/// One node per shape: each node group's shape, or the totals split over nodeCount.
std::vector<std::pair<model::NodeState, int64_t>> shapes(const model::ClusterProfileSpec& spec) {
  std::vector<std::pair<model::NodeState, int64_t>> result;
  for (const auto& group : spec.node_groups) {
    model::NodeState node;
    node.node_group = group.name;
    node.allocatable_cpu_milli = group.node.cpu.milli_value().value_or(0);
    node.allocatable_memory_bytes = group.node.memory.value().value_or(0);
    node.max_pods = static_cast<int32_t>(group.node.max_pods);
    for (const auto& accelerator : group.node.accelerators) {
      add_devices(accelerator, accelerator.count, node);
    }
    model::NodeLabels::Map labels = topology_labels(spec, group.zone);
    labels.insert(group.labels.begin(), group.labels.end());
    node.labels = std::move(labels);
    node.taints = group.taints;
    result.emplace_back(std::move(node), group.count);
  }
  return result;
}

/// The totals of a profile without node groups, split over `count` nodes; the first nodes take
/// the remainders.
std::vector<model::NodeState> split_totals(const model::ClusterProfileSpec& spec, int64_t count) {
  std::vector<model::NodeState> nodes;
  const int64_t cpu = spec.compute ? spec.compute->cpu.milli_value().value_or(0) : 0;
  const int64_t memory = spec.compute ? spec.compute->memory.value().value_or(0) : 0;
  for (int64_t i = 0; i < count; ++i) {
    model::NodeState node;
    node.node_group = spec.topology.node_group.empty() ? "default" : spec.topology.node_group;
    node.allocatable_cpu_milli = cpu / count + (i < cpu % count ? 1 : 0);
    node.allocatable_memory_bytes = memory / count + (i < memory % count ? 1 : 0);
    node.max_pods = 110;
    for (const auto& accelerator : spec.accelerators) {
      add_devices(accelerator, accelerator.count / count + (i < accelerator.count % count ? 1 : 0),
                  node);
    }
    node.labels = topology_labels(spec, spec.topology.zone);
    nodes.push_back(std::move(node));
  }
  return nodes;
}

}  // namespace

std::vector<model::NodeState> expand_nodes(const model::ClusterResourceProfile& profile,
                                           int64_t node_count) {
  const model::ClusterProfileSpec& spec = profile.spec;
  std::vector<model::NodeState> templates;
  if (spec.node_groups.empty()) {
    templates = split_totals(spec, spec.node_count.value_or(1));
  } else {
    for (auto& [shape, count] : shapes(spec)) {
      for (int64_t i = 0; i < (node_count > 0 ? 1 : count); ++i) {
        templates.push_back(shape);
      }
    }
  }
  const int64_t total = node_count > 0 ? node_count : static_cast<int64_t>(templates.size());
  std::vector<model::NodeState> nodes;
  nodes.reserve(static_cast<size_t>(total));
  std::map<std::string, int64_t> per_group;
  for (int64_t i = 0; i < total; ++i) {
    model::NodeState node = templates[static_cast<size_t>(i) % templates.size()];
    node.name = spec.cluster_id + "-" + node.node_group + "-" +
                std::to_string(per_group[node.node_group]++);
    nodes.push_back(std::move(node));
  }
  return nodes;
}

}  // namespace unisched::adapters
