#include "model/cluster_profile.hpp"

#include <set>
#include <tuple>

#include "model/krm_validation.hpp"
#include "model/names.hpp"

namespace unisched::model {
namespace {

constexpr int64_t kMaxNodesPerGroup = 100'000;
constexpr int64_t kMaxPodsPerNode = 10'000;

bool is_kubernetes_version(const std::string& version) {
  // v?MAJOR.MINOR[.PATCH][(-|+)build], e.g. "v1.29.4", "1.28", "v1.27.6+rke2r1".
  size_t pos = version.rfind('v', 0) == 0 ? 1 : 0;
  int numbers = 0;
  while (numbers < 3) {
    const size_t start = pos;
    while (pos < version.size() && std::isdigit(static_cast<unsigned char>(version[pos]))) {
      ++pos;
    }
    if (pos == start) {
      return false;
    }
    ++numbers;
    if (pos >= version.size() || version[pos] != '.') {
      break;
    }
    ++pos;
  }
  if (numbers < 2) {
    return false;
  }
  return pos == version.size() ||
         ((version[pos] == '-' || version[pos] == '+') && pos + 1 < version.size());
}

void validate_node_group(const NodeGroupSpec& group, const FieldPath& path, Validation& check) {
  check.name(group.name, path.child("name"), check_dns1123_label, true);
  check.integer_range(group.count, path.child("count"), 1, kMaxNodesPerGroup);
  check.name(group.zone, path.child("zone"), check_label_value, false);
  const FieldPath node = path.child("node");
  check.cpu(group.node.cpu, node.child("cpu"), true);
  check.bytes(group.node.memory, node.child("memory"), true);
  check.integer_range(group.node.max_pods, node.child("maxPods"), 1, kMaxPodsPerNode);
  for (size_t i = 0; i < group.node.accelerators.size(); ++i) {
    check.accelerator(group.node.accelerators[i], node.child("accelerators").index(i));
  }
  check.labels(group.labels, path.child("labels"));
  for (size_t i = 0; i < group.taints.size(); ++i) {
    const Taint& taint = group.taints[i];
    const FieldPath taint_path = path.child("taints").index(i);
    check.name(taint.key, taint_path.child("key"), check_label_key, true);
    check.name(taint.value, taint_path.child("value"), check_label_value, false);
    if (taint.effect.empty()) {
      check.required(taint_path.child("effect"));
    } else if (taint.effect != "NoSchedule" && taint.effect != "PreferNoSchedule" &&
               taint.effect != "NoExecute") {
      check.add(FieldErrorType::NotSupported, taint_path.child("effect"), quoted(taint.effect),
                "supported values: \"NoExecute\", \"NoSchedule\", \"PreferNoSchedule\"");
    }
  }
}

/// Totals over all node groups, in exact units.
struct GroupTotals {
  int128_t cpu_nanos = 0;
  int128_t memory_nanos = 0;
  int64_t nodes = 0;
  std::map<std::pair<AcceleratorType, std::string>, AcceleratorSpec> accelerators;
};

GroupTotals sum_node_groups(const std::vector<NodeGroupSpec>& groups) {
  GroupTotals totals;
  for (const auto& group : groups) {
    totals.nodes += group.count;
    totals.cpu_nanos += group.node.cpu.nanos() * group.count;
    totals.memory_nanos += group.node.memory.nanos() * group.count;
    for (const auto& accelerator : group.node.accelerators) {
      auto [it, inserted] =
          totals.accelerators.try_emplace({accelerator.type, accelerator.model}, accelerator);
      it->second.count = (inserted ? 0 : it->second.count) + accelerator.count * group.count;
    }
  }
  return totals;
}

/// Fills totals the author left out from the node groups, and checks the ones given against them.
void reconcile_with_node_groups(ClusterProfileSpec& spec, const FieldPath& path,
                                Validation& check) {
  const GroupTotals totals = sum_node_groups(spec.node_groups);
  const std::string groups_say = "must equal the total over spec.nodeGroups (";
  const auto cpu_milli = Quantity::from_nanos(totals.cpu_nanos).milli_value();
  const auto memory_bytes = Quantity::from_nanos(totals.memory_nanos).value();
  if (!cpu_milli || !memory_bytes) {
    check.invalid(path.child("nodeGroups"), {}, "total cpu or memory over all groups is too large");
    return;
  }
  const Quantity total_cpu = Quantity::from_milli(*cpu_milli);
  const Quantity total_memory = Quantity::from_units(*memory_bytes, QuantityFormat::BinarySI);
  if (!spec.compute) {
    spec.compute = ComputeSpec{total_cpu, total_memory};
  } else {
    if (spec.compute->cpu != total_cpu) {
      check.invalid(path.child("compute").child("cpu"), quoted(spec.compute->cpu.to_string()),
                    groups_say + total_cpu.to_string() + ")");
    }
    if (spec.compute->memory != total_memory) {
      check.invalid(path.child("compute").child("memory"), quoted(spec.compute->memory.to_string()),
                    groups_say + total_memory.to_string() + ")");
    }
  }
  if (spec.accelerators.empty()) {
    for (const auto& [key, accelerator] : totals.accelerators) {
      spec.accelerators.push_back(accelerator);
    }
  } else {
    std::set<std::pair<AcceleratorType, std::string>> listed;
    for (size_t i = 0; i < spec.accelerators.size(); ++i) {
      const AcceleratorSpec& given = spec.accelerators[i];
      listed.insert({given.type, given.model});
      const auto found = totals.accelerators.find({given.type, given.model});
      const int64_t in_groups = found == totals.accelerators.end() ? 0 : found->second.count;
      if (given.count != in_groups) {
        check.invalid(path.child("accelerators").index(i).child("count"),
                      std::to_string(given.count), groups_say + std::to_string(in_groups) + ")");
      }
    }
    for (const auto& [key, accelerator] : totals.accelerators) {
      if (listed.count(key) == 0) {
        check.required(path.child("accelerators"),
                       "nodeGroups hold " + std::to_string(accelerator.count) + " " +
                           std::string(spelling(kAcceleratorTypes, key.first)) + " " + key.second +
                           " devices not listed here");
      }
    }
  }
  if (!spec.node_count) {
    spec.node_count = totals.nodes;
  } else if (*spec.node_count != totals.nodes) {
    check.invalid(path.child("nodeCount"), std::to_string(*spec.node_count),
                  groups_say + std::to_string(totals.nodes) + ")");
  }
  for (auto& group : spec.node_groups) {
    if (!group.machine_type) {
      group.machine_type = spec.machine_type;
    }
    if (group.zone.empty()) {
      group.zone = spec.topology.zone;
    }
  }
}

}  // namespace

FieldErrors validate_and_default(ClusterResourceProfile& profile) {
  FieldErrors errors;
  Validation check(errors);
  check.metadata(profile.metadata, FieldPath("metadata"));
  ClusterProfileSpec& spec = profile.spec;
  const FieldPath path("spec");
  check.name(spec.cluster_id, path.child("clusterID"), check_cluster_id, true);
  if (!spec.kubernetes_version.empty() && !is_kubernetes_version(spec.kubernetes_version)) {
    check.invalid(
        path.child("kubernetesVersion"), quoted(spec.kubernetes_version),
        "must look like \"v1.29.4\" or \"1.29\" (an optional -/+ build suffix is allowed)");
  }
  check.name(spec.network_plugin, path.child("networkPlugin"), check_dns1123_label, false);
  if (spec.compute) {
    check.cpu(spec.compute->cpu, path.child("compute").child("cpu"), true);
    check.bytes(spec.compute->memory, path.child("compute").child("memory"), true);
  } else if (spec.node_groups.empty()) {
    check.required(path.child("compute"),
                   "give cluster totals here, or describe the nodes in "
                   "spec.nodeGroups and the totals are derived");
  }
  std::set<std::pair<AcceleratorType, std::string>> accelerator_keys;
  for (size_t i = 0; i < spec.accelerators.size(); ++i) {
    const AcceleratorSpec& accelerator = spec.accelerators[i];
    check.accelerator(accelerator, path.child("accelerators").index(i));
    if (!accelerator_keys.insert({accelerator.type, accelerator.model}).second) {
      check.add(FieldErrorType::Duplicate, path.child("accelerators").index(i).child("model"),
                quoted(accelerator.model), "each type and model is listed once");
    }
  }
  std::set<std::string> storage_classes;
  for (size_t i = 0; i < spec.storage.size(); ++i) {
    const FieldPath storage = path.child("storage").index(i);
    check.name(spec.storage[i].storage_class, storage.child("class"), check_dns1123_subdomain,
               true);
    check.bytes(spec.storage[i].capacity, storage.child("capacity"), false);
    if (!storage_classes.insert(spec.storage[i].storage_class).second) {
      check.add(FieldErrorType::Duplicate, storage.child("class"),
                quoted(spec.storage[i].storage_class), {});
    }
  }
  const FieldPath topology = path.child("topology");
  check.name(spec.topology.region, topology.child("region"), check_label_value, false);
  check.name(spec.topology.zone, topology.child("zone"), check_label_value, false);
  check.name(spec.topology.node_group, topology.child("nodeGroup"), check_label_value, false);
  if (spec.node_count) {
    check.integer_range(*spec.node_count, path.child("nodeCount"), 1, kMaxNodesPerGroup * 100);
  }
  std::set<std::string> group_names;
  for (size_t i = 0; i < spec.node_groups.size(); ++i) {
    const FieldPath group = path.child("nodeGroups").index(i);
    validate_node_group(spec.node_groups[i], group, check);
    if (!group_names.insert(spec.node_groups[i].name).second) {
      check.add(FieldErrorType::Duplicate, group.child("name"), quoted(spec.node_groups[i].name),
                {});
    }
  }
  // Totals are compared with node groups only once every number in them is known to be sane.
  if (errors.empty()) {
    if (spec.node_groups.empty()) {
      spec.node_count = spec.node_count.value_or(1);
    } else {
      reconcile_with_node_groups(spec, path, check);
    }
  }
  return errors;
}

}  // namespace unisched::model
