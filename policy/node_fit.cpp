#include "policy/node_fit.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace unisched::policy {
namespace {

bool device_matches(const model::Device& device, const DeviceDemand& demand) {
  return device.allocated_milli == 0 && device.type == demand.type &&
         (demand.model.empty() || device.model == demand.model) &&
         device.memory_bytes >= demand.min_memory_bytes &&
         (!demand.link || model::interconnect_satisfies(device.interconnect, *demand.link));
}

/// Chooses `demand.count` devices not yet `taken`; empty when impossible.
std::vector<int32_t> choose_devices(const model::NodeState& node, const DeviceDemand& demand,
                                    const std::set<int32_t>& taken) {
  std::map<int32_t, std::vector<int32_t>> by_group;
  for (size_t i = 0; i < node.devices.size(); ++i) {
    const auto index = static_cast<int32_t>(i);
    if (taken.count(index) == 0 && device_matches(node.devices[i], demand)) {
      by_group[node.devices[i].topology_group].push_back(index);
    }
  }
  // Groups that could serve, smallest first: best fit keeps big groups whole.
  std::vector<const std::vector<int32_t>*> groups;
  for (const auto& [group, members] : by_group) {
    groups.push_back(&members);
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](const auto* a, const auto* b) { return a->size() < b->size(); });
  if (demand.link && *demand.link != model::Interconnect::PCIe) {
    for (const auto* members : groups) {
      if (members->size() >= static_cast<size_t>(demand.count)) {
        return {members->begin(), members->begin() + demand.count};
      }
    }
    return {};
  }
  std::vector<int32_t> chosen;
  for (const auto* members : groups) {
    for (const int32_t index : *members) {
      if (chosen.size() == static_cast<size_t>(demand.count)) {
        break;
      }
      chosen.push_back(index);
    }
  }
  return chosen.size() == static_cast<size_t>(demand.count) ? chosen : std::vector<int32_t>{};
}

}  // namespace

const char* describe(NodeMisfit misfit) {
  switch (misfit) {
    case NodeMisfit::Unschedulable:
      return "node not schedulable";
    case NodeMisfit::Pods:
      return "too many pods";
    case NodeMisfit::Cpu:
      return "insufficient cpu";
    case NodeMisfit::Memory:
      return "insufficient memory";
    case NodeMisfit::HostPort:
      return "host port in use";
    case NodeMisfit::Devices:
      return "not enough matching free devices";
  }
  return "does not fit";
}

NodeFit fit_on_node(const model::NodeState& node, const ReplicaDemand& demand) {
  NodeFit fit;
  if (const auto lacks = model::capacity_shortfall(node, demand.cpu_milli, demand.memory_bytes,
                                                   demand.host_ports)) {
    switch (*lacks) {
      case model::Shortfall::Unschedulable:
        fit.misfit = NodeMisfit::Unschedulable;
        break;
      case model::Shortfall::PodSlot:
        fit.misfit = NodeMisfit::Pods;
        break;
      case model::Shortfall::Cpu:
        fit.misfit = NodeMisfit::Cpu;
        break;
      case model::Shortfall::Memory:
        fit.misfit = NodeMisfit::Memory;
        break;
      case model::Shortfall::HostPort:
        fit.misfit = NodeMisfit::HostPort;
        break;
    }
    return fit;
  }
  std::set<int32_t> taken;
  for (const DeviceDemand& device : demand.devices) {
    const auto chosen = choose_devices(node, device, taken);
    if (chosen.empty()) {
      fit.misfit = NodeMisfit::Devices;
      fit.devices.clear();
      return fit;
    }
    taken.insert(chosen.begin(), chosen.end());
    fit.devices.insert(fit.devices.end(), chosen.begin(), chosen.end());
  }
  return fit;
}

void take(model::NodeState& node, const ReplicaDemand& demand, const NodeFit& fit) {
  node.allocated_cpu_milli += demand.cpu_milli;
  node.allocated_memory_bytes += demand.memory_bytes;
  node.pod_count += 1;
  for (const int32_t index : fit.devices) {
    node.devices[static_cast<size_t>(index)].allocated_milli = model::kWholeDeviceMilli;
  }
  node.host_ports_in_use.insert(node.host_ports_in_use.end(), demand.host_ports.begin(),
                                demand.host_ports.end());
  std::sort(node.host_ports_in_use.begin(), node.host_ports_in_use.end());
}

}  // namespace unisched::policy
