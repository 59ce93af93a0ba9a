#include "policy/node_fit.hpp"

#include <absl/container/inlined_vector.h>

#include <algorithm>

#include "model/accelerator_names.hpp"

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

/// Appends `demand.count` devices not yet in `fit` to it, each taking `demand.milli`; false
/// (and `fit` unchanged) when impossible. Its lists live on the stack: a decision asks this of
/// every node it offers, and malloc and free took a fifth of a sampled decision.
bool choose_devices(const model::NodeState& node, const ReplicaDemand& replica,
                    const DeviceDemand& demand, ChooserInCycle with, NodeFit& fit) {
  // (topology group, index) of every free matching device, ordered by group then index.
  absl::InlinedVector<std::pair<int32_t, int32_t>, 16> matching;
  for (size_t i = 0; i < node.devices.size(); ++i) {
    const auto index = static_cast<int32_t>(i);
    if (device_matches(node.devices[i], demand) &&
        std::find(fit.devices.begin(), fit.devices.end(), index) == fit.devices.end()) {
      matching.emplace_back(node.devices[i].topology_group, index);
    }
  }
  const auto count = static_cast<size_t>(demand.count);
  if (count == 0 || matching.size() < count) {  // a demand of no device is no fit
    return false;
  }
  const size_t first = fit.devices.size();  // where this demand's devices begin
  const auto add = [&](int32_t index) {
    fit.devices.push_back(index);
    fit.device_milli.push_back(demand.milli);
  };
  if (demand.milli < model::kWholeDeviceMilli) {
    // A share goes to one device: the chooser's, or the one left with the least idle milli
    // that still holds it (best fit), the lowest index on a tie, so that idle devices stay whole.
    if (with.chooser != nullptr && with.cycle != nullptr) {
      std::vector<int32_t> candidates;  // in index order, as `matching` was built
      candidates.reserve(matching.size());
      for (const auto& [group, index] : matching) {
        candidates.push_back(index);
      }
      add(with.chooser->choose(node, replica, candidates, *with.cycle));
      return true;
    }
    add(std::min_element(matching.begin(), matching.end(), [&](auto a, auto b) {
          return node.devices[static_cast<size_t>(a.second)].allocated_milli >
                 node.devices[static_cast<size_t>(b.second)].allocated_milli;
        })->second);
    return true;
  }
  std::sort(matching.begin(), matching.end());
  // The groups as runs of `matching`, smallest first (best fit keeps big groups whole), ties
  // by group: in the order of where they begin, as the runs are in group order. (Not
  // std::stable_sort, which takes a buffer from the heap on every call.)
  absl::InlinedVector<std::pair<size_t, size_t>, 8> groups;  // (begin, end) in `matching`
  for (size_t begin = 0; begin < matching.size();) {
    size_t end = begin;
    while (end < matching.size() && matching[end].first == matching[begin].first) {
      ++end;
    }
    groups.emplace_back(begin, end);
    begin = end;
  }
  std::sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) {
    const size_t size_a = a.second - a.first;
    const size_t size_b = b.second - b.first;
    return size_a != size_b ? size_a < size_b : a.first < b.first;
  });
  if (demand.link && *demand.link != model::Interconnect::PCIe) {
    for (const auto& [begin, end] : groups) {
      if (end - begin >= count) {
        for (size_t i = begin; i < begin + count; ++i) {
          add(matching[i].second);
        }
        return true;
      }
    }
    return false;
  }
  for (const auto& [begin, end] : groups) {
    for (size_t i = begin; i < end && fit.devices.size() < first + count; ++i) {
      add(matching[i].second);
    }
  }
  return true;
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
    if (!choose_devices(node, demand, device, with, fit)) {
      fit.misfit = NodeMisfit::Devices;
      fit.devices.clear();
      fit.device_milli.clear();
      return fit;
    }
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
