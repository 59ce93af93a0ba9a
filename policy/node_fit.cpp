#include "policy/node_fit.hpp"

#include "model/accelerator_names.hpp"

#include <algorithm>

namespace unisched::policy {
namespace {

bool device_matches(const model::Device& device, const DeviceDemand& demand) {
  return device.allocated_milli + demand.milli <= model::kWholeDeviceMilli &&
         device.type == demand.type &&
         // A device whose profile named only its kind ("GPU") may be any vendor's.
         (demand.resource.empty() || device.resource.str().empty() ||
          device.resource == demand.resource) &&
         device.memory_bytes >= demand.min_memory_bytes &&
         (!demand.link || model::link_satisfies({device.interconnect, device.link_generation},
                                                {*demand.link, demand.min_link_generation})) &&
         demand.models.accepts(device.model);
}

/// Chooses `demand.count` devices not yet `taken`; empty when impossible.
std::vector<int32_t> choose_devices(const model::NodeState& node, const ReplicaDemand& replica,
                                    const DeviceDemand& demand, const std::vector<int32_t>& taken,
                                    ChooserInCycle with) {
  // (topology group, index) of every free matching device, ordered by group then index.
  std::vector<std::pair<int32_t, int32_t>> matching;
  matching.reserve(node.devices.size());
  for (size_t i = 0; i < node.devices.size(); ++i) {
    const auto index = static_cast<int32_t>(i);
    if (device_matches(node.devices[i], demand) &&
        std::find(taken.begin(), taken.end(), index) == taken.end()) {
      matching.emplace_back(node.devices[i].topology_group, index);
    }
  }
  const auto count = static_cast<size_t>(demand.count);
  if (matching.size() < count) {
    return {};
  }
  if (demand.milli < model::kWholeDeviceMilli) {
    // A share goes to one device: the chooser's, or the one left with the least idle milli
    // that still holds it (best fit), the lowest index on a tie, so that idle devices stay whole.
    std::vector<int32_t> candidates;  // in index order, as `matching` was built
    for (const auto& [group, index] : matching) {
      candidates.push_back(index);
    }
    if (with.chooser != nullptr && with.cycle != nullptr) {
      return {with.chooser->choose(node, replica, candidates, *with.cycle)};
    }
    return {*std::min_element(candidates.begin(), candidates.end(), [&](int32_t a, int32_t b) {
      return node.devices[static_cast<size_t>(a)].allocated_milli >
             node.devices[static_cast<size_t>(b)].allocated_milli;
    })};
  }
  std::sort(matching.begin(), matching.end());
  // The groups as runs of `matching`, smallest first (best fit keeps big groups whole), ties
  // by group.
  std::vector<std::pair<size_t, size_t>> groups;  // (begin, end) in `matching`
  for (size_t begin = 0; begin < matching.size();) {
    size_t end = begin;
    while (end < matching.size() && matching[end].first == matching[begin].first) {
      ++end;
    }
    groups.emplace_back(begin, end);
    begin = end;
  }
  std::stable_sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) {
    return a.second - a.first < b.second - b.first;
  });
  std::vector<int32_t> chosen;
  chosen.reserve(count);
  if (demand.link && *demand.link != model::Interconnect::PCIe) {
    for (const auto& [begin, end] : groups) {
      if (end - begin >= count) {
        for (size_t i = begin; i < begin + count; ++i) {
          chosen.push_back(matching[i].second);
        }
        return chosen;
      }
    }
    return {};
  }
  for (const auto& [begin, end] : groups) {
    for (size_t i = begin; i < end && chosen.size() < count; ++i) {
      chosen.push_back(matching[i].second);
    }
  }
  return chosen;
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
    case NodeMisfit::WholeDevicesOnly:
      return "devices counted in whole units only (Kubernetes), no share";
  }
  return "does not fit";
}

NodeFit fit_on_node(const model::NodeState& node, const ReplicaDemand& demand,
                    ChooserInCycle with) {
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
  for (const DeviceDemand& device : demand.devices) {
    if (device.milli < model::kWholeDeviceMilli && model::counts_devices_whole(node)) {
      fit.misfit = NodeMisfit::WholeDevicesOnly;
      fit.devices.clear();
      fit.device_milli.clear();
      return fit;
    }
    // Those chosen for an earlier device demand are taken.
    const auto chosen = choose_devices(node, demand, device, fit.devices, with);
    if (chosen.empty()) {
      fit.misfit = NodeMisfit::Devices;
      fit.devices.clear();
      fit.device_milli.clear();
      return fit;
    }
    fit.devices.insert(fit.devices.end(), chosen.begin(), chosen.end());
    fit.device_milli.insert(fit.device_milli.end(), chosen.size(), device.milli);
  }
  return fit;
}

void take(model::NodeState& node, const ReplicaDemand& demand, const NodeFit& fit) {
  node.allocated_cpu_milli += demand.cpu_milli;
  node.allocated_memory_bytes += demand.memory_bytes;
  node.pod_count += 1;
  for (size_t i = 0; i < fit.devices.size(); ++i) {
    node.devices[static_cast<size_t>(fit.devices[i])].allocated_milli += fit.device_milli[i];
  }
  node.host_ports_in_use.insert(node.host_ports_in_use.end(), demand.host_ports.begin(),
                                demand.host_ports.end());
  std::sort(node.host_ports_in_use.begin(), node.host_ports_in_use.end());
}

}  // namespace unisched::policy
