#include "adapters/slurm/slurm_node.hpp"

#include <absl/strings/str_split.h>
#include <absl/strings/string_view.h>

#include "adapters/slurm/gres.hpp"
#include "model/cluster_view.hpp"
#include "model/names.hpp"

namespace unisched::adapters::slurm {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t kMaxGpusPerNode = 64;

absl::Status node_error(const SlurmNode& node, const std::string& field, absl::string_view why) {
  return absl::InvalidArgumentError("slurm node \"" + node.name + "\": " + field + ": " +
                                    std::string(why));
}

/// One device per configured GPU, in Slurm's index order (types in the order configured: the
/// order slurmd numbers them), marked allocated where GresUsed lists the index.
absl::Status add_gpus(const SlurmNode& node, model::NodeState& out) {
  auto configured = parse_gres(node.gres);
  if (!configured.ok()) {
    return node_error(node, "Gres", configured.status().message());
  }
  auto used = parse_gres(node.gres_used);
  if (!used.ok()) {
    return node_error(node, "GresUsed", used.status().message());
  }
  for (const GresEntry& entry : *configured) {
    if (entry.name != "gpu") {
      continue;
    }
    if (entry.count > kMaxGpusPerNode ||
        static_cast<int64_t>(out.devices.size()) + entry.count > kMaxGpusPerNode) {
      return node_error(node, "Gres", "more than 64 GPUs on one node");
    }
    for (int64_t i = 0; i < entry.count; ++i) {
      model::Device device;
      device.model = model::Symbol(entry.type.empty() ? std::string("gpu") : entry.type);
      out.devices.push_back(device);
    }
  }
  for (const GresEntry& entry : *used) {
    for (const int32_t index : entry.indexes) {
      if (entry.name != "gpu") {
        break;
      }
      if (index >= static_cast<int32_t>(out.devices.size())) {
        return node_error(node, "GresUsed",
                          "index " + std::to_string(index) + " beyond the node's GPUs");
      }
      out.devices[static_cast<size_t>(index)].allocated_milli = model::kWholeDeviceMilli;
    }
  }
  return absl::OkStatus();
}

/// IDLE, MIXED and ALLOCATED take work unless draining or not responding.
bool usable(const SlurmNode& node) {
  const bool up_state = node.state == "IDLE" || node.state == "MIXED" || node.state == "ALLOCATED";
  return up_state && !node.drain && !node.not_responding;
}

void add_labels(const SlurmNode& node, model::NodeState& out) {
  model::NodeLabels::Map labels = out.labels.map();
  labels["slurm.schedmd.com/state"] = node.drain ? node.state + "-DRAIN" : node.state;
  if (!node.reason.empty()) {
    labels["slurm.schedmd.com/reason"] = model::dns1123_label_from(node.reason);
  }
  if (!node.partitions.empty()) {
    labels[kPartitionsLabel] = model::dns1123_label_from(node.partitions);
    const std::vector<std::string> partitions = absl::StrSplit(node.partitions, ',');
    out.node_group = partitions.front();
  }
  for (absl::string_view feature : absl::StrSplit(node.features, ',', absl::SkipEmpty())) {
    const std::string_view name(feature.data(), feature.size());
    if (name != "(null)" && model::check_label_value(name).empty()) {
      labels[std::string(kFeatureLabelPrefix) + model::dns1123_label_from(name)] = "true";
    }
  }
  out.labels = std::move(labels);
}

}  // namespace

bool SlurmNode::operator==(const SlurmNode& other) const {
  return name == other.name && cpus == other.cpus && alloc_cpus == other.alloc_cpus &&
         real_memory_mb == other.real_memory_mb && alloc_memory_mb == other.alloc_memory_mb &&
         gres == other.gres && gres_used == other.gres_used && state == other.state &&
         drain == other.drain && not_responding == other.not_responding && reason == other.reason &&
         partitions == other.partitions && features == other.features;
}

absl::StatusOr<model::NodeState> node_state_of(const SlurmNode& node) {
  if (const std::string why = model::check_dns1123_subdomain(node.name); !why.empty()) {
    return node_error(node, "NodeName", why);
  }
  if (node.cpus <= 0 || node.alloc_cpus < 0 || node.alloc_cpus > node.cpus) {
    return node_error(node, "CPUAlloc",
                      "allocated " + std::to_string(node.alloc_cpus) + " of " +
                          std::to_string(node.cpus) + " cpus");
  }
  if (node.real_memory_mb < 0 || node.alloc_memory_mb < 0 ||
      node.real_memory_mb > model::kMaxNodeAmount / kMiB) {
    return node_error(node, "RealMemory", "not a memory size in MiB");
  }
  model::NodeState out;
  out.name = node.name;
  out.allocatable_cpu_milli = node.cpus * 1000;
  out.allocated_cpu_milli = node.alloc_cpus * 1000;
  out.allocatable_memory_bytes = node.real_memory_mb * kMiB;
  out.allocated_memory_bytes = node.alloc_memory_mb * kMiB;
  out.max_pods = static_cast<int32_t>(node.cpus);  // at most a job per cpu
  if (auto status = add_gpus(node, out); !status.ok()) {
    return status;
  }
  out.schedulable = usable(node);
  add_labels(node, out);
  return out;
}

}  // namespace unisched::adapters::slurm
