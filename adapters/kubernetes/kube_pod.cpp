#include <algorithm>
#include <optional>
#include <set>

#include "adapters/kubernetes/readers.hpp"
#include "model/int128.hpp"

namespace unisched::adapters::kubernetes {
namespace {

/// Resource name -> amount in unisched's units (millicores, bytes, units).
using Amounts = std::map<std::string, int64_t>;

void add(Amounts& to, const Amounts& more) {
  for (const auto& [resource, amount] : more) {
    to[resource] += amount;
  }
}

void raise_to(Amounts& to, const Amounts& floor) {
  for (const auto& [resource, amount] : floor) {
    int64_t& held = to[resource];
    held = std::max(held, amount);
  }
}

/// Reads a map of quantities (requests, limits, overhead) into `out`, skipping what is there.
bool read_amounts(Element owner, std::string_view key, const std::string& path, Amounts& out,
                  std::string& error) {
  bool ok = true;
  each_member(owner, key, [&](std::string_view resource, Element value) {
    if (!ok || out.count(std::string(resource)) > 0) {
      return;
    }
    const std::string quantity = quantity_text(value);
    const auto amount = amount_of(resource, quantity);
    if (!amount) {
      error = path + "." + std::string(key) + "." + std::string(resource) + ": Invalid value: \"" +
              quantity + "\"";
      ok = false;
      return;
    }
    out.emplace(std::string(resource), *amount);
  });
  return ok;
}

/// A container's requests; a resource with a limit and no request requests its limit, as the
/// API server defaults it.
bool container_requests(Element container, const std::string& path, Amounts& out,
                        std::string& error) {
  Element resources;
  if (!child(container, "resources", resources)) {
    return true;
  }
  return read_amounts(resources, "requests", path + ".resources", out, error) &&
         read_amounts(resources, "limits", path + ".resources", out, error);
}

/// Kubernetes' rule (resourcehelper.PodRequests): containers and sidecars run together; each
/// ordinary init container runs alone beside the sidecars started before it; the pod needs the
/// larger of the two, plus its overhead.
bool pod_requests(Element spec, Amounts& total, std::string& error) {
  bool ok = true;
  size_t index = 0;
  each_item(spec, "containers", [&](Element container) {
    Amounts requests;
    ok = ok && container_requests(container, "spec.containers[" + std::to_string(index++) + "]",
                                  requests, error);
    add(total, requests);
  });
  Amounts sidecars;
  Amounts init_peak;
  index = 0;
  each_item(spec, "initContainers", [&](Element container) {
    Amounts requests;
    ok = ok && container_requests(container, "spec.initContainers[" + std::to_string(index++) + "]",
                                  requests, error);
    if (text(container, "restartPolicy") == "Always") {
      add(total, requests);
      add(sidecars, requests);
      requests = sidecars;
    } else {
      add(requests, sidecars);
    }
    raise_to(init_peak, requests);
  });
  raise_to(total, init_peak);
  Amounts overhead;
  ok = ok && read_amounts(spec, "overhead", "spec", overhead, error);
  add(total, overhead);
  return ok;
}

std::vector<int32_t> host_ports(Element spec) {
  std::set<int32_t> ports;
  each_item(spec, "containers", [&](Element container) {
    each_item(container, "ports", [&](Element port) {
      int64_t value = 0;
      if (field(port, "hostPort").get(value) == simdjson::SUCCESS && value > 0 && value <= 65535) {
        ports.insert(static_cast<int32_t>(value));
      }
    });
  });
  return {ports.begin(), ports.end()};
}

}  // namespace

model::Expected<PodReading, std::string> read_pod(Element object) {
  Element metadata;
  if (!child(object, "metadata", metadata) || text(metadata, "name").empty()) {
    return std::string("metadata.name: Required value");
  }
  PodReading pod;
  pod.key = std::string(text(metadata, "namespace")) + "/" + std::string(text(metadata, "name"));
  pod.uid = std::string(text(metadata, "uid"));
  pod.resource_version = std::string(text(metadata, "resourceVersion"));
  pod.deleted = !text(metadata, "deletionTimestamp").empty();
  Element annotations;
  if (child(metadata, "annotations", annotations)) {
    pod.placement_id = std::string(text(annotations, kPlacementAnnotation));
  }
  Element status;
  if (child(object, "status", status)) {
    pod.phase = std::string(text(status, "phase"));
    if (pod.phase == "Failed") {
      pod.failure =
          std::string(text(status, "reason")) + ": " + std::string(text(status, "message"));
    }
  }
  Element spec;
  if (!child(object, "spec", spec)) {
    return pod;  // a bookmark-like shell: nothing requested
  }
  pod.node = std::string(text(spec, "nodeName"));
  Amounts requests;
  std::string error;
  if (!pod_requests(spec, requests, error)) {
    return error;
  }
  for (auto& [resource, amount] : requests) {
    if (resource == "cpu") {
      pod.cpu_milli = amount;
    } else if (resource == "memory") {
      pod.memory_bytes = amount;
    } else if (resource.find('/') != std::string::npos) {
      pod.extended.emplace(resource, amount);
    }
  }
  pod.host_ports = host_ports(spec);
  return pod;
}

namespace {

/// Why `pod` cannot be on `node` at all (it asks more than the node offers), or nullopt. Such a
/// pod comes only from a broken or hostile API server; counting it would wrap the node's sums.
std::optional<std::string> exceeds_node(const PodReading& pod, const model::NodeState& node) {
  if (pod.cpu_milli > node.allocatable_cpu_milli) {
    return "cpu " + std::to_string(pod.cpu_milli) + "m of " +
           std::to_string(node.allocatable_cpu_milli) + "m";
  }
  if (pod.memory_bytes > node.allocatable_memory_bytes) {
    return "memory " + std::to_string(pod.memory_bytes) + " of " +
           std::to_string(node.allocatable_memory_bytes) + " bytes";
  }
  for (const auto& [resource, amount] : pod.extended) {
    int64_t devices = 0;
    for (const model::Device& device : node.devices) {
      devices += device.resource.str() == resource ? 1 : 0;
    }
    if (amount > devices) {
      return resource + " " + std::to_string(amount) + " of " + std::to_string(devices);
    }
  }
  return std::nullopt;
}

/// `sum` as a node amount: at most what the node offers (a node whose pods ask more is full).
int64_t at_most(model::int128_t sum, int64_t offered) {
  return static_cast<int64_t>(std::min<model::int128_t>(sum, offered));
}

}  // namespace

model::NodeState with_pods(const model::NodeState& node, const std::vector<const PodReading*>& pods,
                           std::vector<std::string>& warnings) {
  model::NodeState out = node;
  model::int128_t cpu_milli = out.allocated_cpu_milli;
  model::int128_t memory_bytes = out.allocated_memory_bytes;
  std::map<std::string, int64_t> taken;
  std::set<int32_t> ports(out.host_ports_in_use.begin(), out.host_ports_in_use.end());
  for (const PodReading* pod : pods) {
    if (pod->terminated()) {
      continue;
    }
    if (const auto why = exceeds_node(*pod, node)) {
      warnings.push_back("pod " + pod->key + " asks more than its node " + node.name + " offers (" +
                         *why + "); not counted on it");
      continue;
    }
    cpu_milli += pod->cpu_milli;
    memory_bytes += pod->memory_bytes;
    ++out.pod_count;
    ports.insert(pod->host_ports.begin(), pod->host_ports.end());
    for (const auto& [resource, amount] : pod->extended) {
      taken[resource] += amount;  // each at most the node's devices: no wrap
    }
  }
  if (cpu_milli > node.allocatable_cpu_milli || memory_bytes > node.allocatable_memory_bytes) {
    warnings.push_back("node " + node.name +
                       ": its pods together ask more than it offers; counted as full");
  }
  out.allocated_cpu_milli = at_most(cpu_milli, node.allocatable_cpu_milli);
  out.allocated_memory_bytes = at_most(memory_bytes, node.allocatable_memory_bytes);
  for (model::Device& device : out.devices) {
    int64_t& left = taken[device.resource.str()];
    if (left > 0 && device.allocated_milli == 0) {
      device.allocated_milli = model::kWholeDeviceMilli;
      --left;
    }
  }
  out.host_ports_in_use.assign(ports.begin(), ports.end());
  return out;
}

}  // namespace unisched::adapters::kubernetes
