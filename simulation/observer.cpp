#include "simulation/observer.hpp"

#include <absl/strings/str_cat.h>
#include <spdlog/spdlog.h>

namespace unisched::simulation {

void Observer::violation(std::string what) {
  violations_.push_back(absl::StrCat("t=", now_ms_, "ms: ", what));
}

void Observer::add_cluster(const std::string& cluster, const std::vector<model::NodeState>& nodes) {
  auto& known = nodes_[cluster];
  for (const model::NodeState& state : nodes) {
    Node node;
    node.cpu_milli = state.allocatable_cpu_milli;
    node.memory_bytes = state.allocatable_memory_bytes;
    node.max_pods = state.max_pods;
    node.used.cpu_milli = state.allocated_cpu_milli;
    node.used.memory_bytes = state.allocated_memory_bytes;
    node.used.pods = state.pod_count;
    for (const model::Device& device : state.devices) {
      node.used.device_milli.push_back(device.allocated_milli);
    }
    node.used.host_ports.insert(state.host_ports_in_use.begin(), state.host_ports_in_use.end());
    known[state.name] = std::move(node);
  }
}

std::string Observer::shortfall(const Node& node, const adapters::Placement& placement) {
  if (node.used.pods + 1 > node.max_pods) {
    return "pods";
  }
  if (node.used.cpu_milli + placement.cpu_milli > node.cpu_milli) {
    return "cpu";
  }
  if (node.used.memory_bytes + placement.memory_bytes > node.memory_bytes) {
    return "memory";
  }
  for (int32_t index : placement.devices) {
    if (index < 0 || static_cast<size_t>(index) >= node.used.device_milli.size()) {
      return absl::StrCat("device ", index, " (no such device)");
    }
    if (node.used.device_milli[static_cast<size_t>(index)] + placement.milli_per_device >
        model::kWholeDeviceMilli) {
      return absl::StrCat("device ", index);
    }
  }
  for (int32_t port : placement.host_ports) {
    if (node.used.host_ports.count(port) > 0) {
      return absl::StrCat("host port ", port);
    }
  }
  return {};
}

void Observer::take(Usage& used, const adapters::Placement& placement, int sign) {
  used.cpu_milli += sign * placement.cpu_milli;
  used.memory_bytes += sign * placement.memory_bytes;
  used.pods += sign;
  for (int32_t index : placement.devices) {
    used.device_milli[static_cast<size_t>(index)] += sign * placement.milli_per_device;
  }
  for (int32_t port : placement.host_ports) {
    if (sign > 0) {
      used.host_ports.insert(port);
    } else {
      used.host_ports.erase(port);
    }
  }
}

void Observer::on_apply(const std::string& cluster, const adapters::Placement& placement,
                        adapters::PlacementOutcome outcome) {
  ++checks_;
  spdlog::debug("observer: t={}ms {} {} on {}: {}", now_ms_, cluster, placement.id, placement.node,
                adapters::describe(outcome));
  auto node = nodes_[cluster].find(placement.node);
  if (node == nodes_[cluster].end()) {
    if (outcome == adapters::PlacementOutcome::Applied) {
      violation(absl::StrCat(cluster, ": placement ", placement.id, " applied on unknown node ",
                             placement.node));
    }
    return;
  }
  const bool duplicate = running_.count(placement.id) > 0;
  const std::string lacks = duplicate ? std::string() : shortfall(node->second, placement);
  if (outcome != adapters::PlacementOutcome::Applied) {
    if (outcome == adapters::PlacementOutcome::DoesNotFit && !lacks.empty()) {
      ++refused_for_room_;
    }
    return;
  }
  if (duplicate) {
    violation(absl::StrCat(cluster, ": placement ", placement.id, " applied twice"));
    return;
  }
  if (!lacks.empty()) {
    violation(absl::StrCat(cluster, "/", placement.node, " over-committed by placement ",
                           placement.id, ": ", lacks));
  }
  ++applied_;
  take(node->second.used, placement, +1);
  running_[placement.id] = {cluster, placement};
  ever_applied_.insert(placement.id);
}

void Observer::on_gone(const std::string& cluster, const std::string& placement_id, bool finished) {
  spdlog::debug("observer: t={}ms {} {} {}", now_ms_, cluster, placement_id,
                finished ? "finished" : "released");
  const auto running = running_.find(placement_id);
  if (running == running_.end() || running->second.cluster != cluster) {
    return;
  }
  take(nodes_[cluster][running->second.placement.node].used, running->second.placement, -1);
  running_.erase(running);
  if (finished) {
    finished_.insert(placement_id);
  }
}

void Observer::check_reported(const std::string& where, const model::NodeState& node) {
  ++checks_;
  const auto over = [&](const std::string& what, int64_t used, int64_t has) {
    if (used > has) {
      violation(absl::StrCat(where, ": node ", node.name, " reported over-committed: ", what, " ",
                             used, " of ", has));
    }
  };
  over("cpu milli", node.allocated_cpu_milli, node.allocatable_cpu_milli);
  over("memory bytes", node.allocated_memory_bytes, node.allocatable_memory_bytes);
  over("pods", node.pod_count, node.max_pods);
  for (size_t i = 0; i < node.devices.size(); ++i) {
    over(absl::StrCat("device ", i, " milli"), node.devices[i].allocated_milli,
         model::kWholeDeviceMilli);
  }
  for (size_t i = 1; i < node.host_ports_in_use.size(); ++i) {
    if (node.host_ports_in_use[i] <= node.host_ports_in_use[i - 1]) {
      violation(absl::StrCat(where, ": node ", node.name, " reports host port ",
                             node.host_ports_in_use[i], " twice or out of order"));
    }
  }
}

}  // namespace unisched::simulation
