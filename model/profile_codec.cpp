#include "model/manifest_codec.hpp"

namespace unisched::model {
namespace {

NodeGroupSpec decode_node_group(YamlObject& group) {
  NodeGroupSpec spec;
  spec.name = group.string("name").value_or("");
  spec.count = group.integer("count", true).value_or(0);
  spec.machine_type = group.enumeration("machineType", kMachineTypes);
  spec.zone = group.string("zone").value_or("");
  if (auto node = group.object("node", true)) {
    spec.node.cpu = node->quantity("cpu", true).value_or(Quantity());
    spec.node.memory = node->quantity("memory", true).value_or(Quantity());
    for (auto& accelerator : node->objects("accelerators")) {
      spec.node.accelerators.push_back(decode_accelerator(accelerator));
    }
    spec.node.max_pods = node->integer("maxPods").value_or(spec.node.max_pods);
    node->reject_unknown_fields();
  }
  spec.labels = group.string_map("labels");
  for (auto& taint : group.objects("taints")) {
    spec.taints.push_back(Taint{taint.string("key").value_or(""),
                                taint.string("value").value_or(""),
                                taint.string("effect").value_or("")});
    taint.reject_unknown_fields();
  }
  group.reject_unknown_fields();
  return spec;
}

void encode_node_group(const NodeGroupSpec& group, DocumentWriter& out) {
  out.begin_object();
  out.field("name", group.name);
  out.field("count", group.count);
  if (group.machine_type) {
    out.field("machineType", spelling(kMachineTypes, *group.machine_type));
  }
  if (!group.zone.empty()) {
    out.field("zone", group.zone);
  }
  out.key("node");
  out.begin_object();
  out.field("cpu", group.node.cpu.to_string());
  out.field("memory", group.node.memory.to_string());
  if (!group.node.accelerators.empty()) {
    out.key("accelerators");
    out.begin_list();
    for (const auto& accelerator : group.node.accelerators) {
      encode_accelerator(accelerator, out);
    }
    out.end_list();
  }
  out.field("maxPods", group.node.max_pods);
  out.end_object();
  encode_string_map("labels", group.labels, out);
  if (!group.taints.empty()) {
    out.key("taints");
    out.begin_list();
    for (const auto& taint : group.taints) {
      out.begin_object();
      out.field("key", taint.key);
      if (!taint.value.empty()) {
        out.field("value", taint.value);
      }
      out.field("effect", taint.effect);
      out.end_object();
    }
    out.end_list();
  }
  out.end_object();
}

void decode_spec(YamlObject& spec, ClusterProfileSpec& out) {
  out.cluster_id = spec.string("clusterID").value_or("");
  out.kubernetes_version = spec.string("kubernetesVersion").value_or("");
  out.network_plugin = spec.string("networkPlugin").value_or("");
  out.machine_type = spec.enumeration("machineType", kMachineTypes).value_or(out.machine_type);
  if (auto compute = spec.object("compute")) {
    out.compute = ComputeSpec{compute->quantity("cpu", true).value_or(Quantity()),
                              compute->quantity("memory", true).value_or(Quantity())};
    compute->reject_unknown_fields();
  }
  for (auto& accelerator : spec.objects("accelerators")) {
    out.accelerators.push_back(decode_accelerator(accelerator));
  }
  if (auto network = spec.object("network")) {
    out.network.bandwidth = network->bandwidth("bandwidth");
    out.network.latency = network->latency("latency");
    network->reject_unknown_fields();
  }
  for (auto& storage : spec.objects("storage")) {
    out.storage.push_back(StorageSpec{storage.string("class").value_or(""),
                                      storage.quantity("capacity", true).value_or(Quantity())});
    storage.reject_unknown_fields();
  }
  if (auto topology = spec.object("topology")) {
    out.topology.region = topology->string("region").value_or("");
    out.topology.zone = topology->string("zone").value_or("");
    out.topology.node_group = topology->string("nodeGroup").value_or("");
    topology->reject_unknown_fields();
  }
  out.node_count = spec.integer("nodeCount");
  for (auto& group : spec.objects("nodeGroups")) {
    out.node_groups.push_back(decode_node_group(group));
  }
  spec.reject_unknown_fields();
}

}  // namespace

ClusterResourceProfile decode_profile(YamlObject& document) {
  ClusterResourceProfile profile;
  if (auto metadata = document.object("metadata", true)) {
    profile.metadata = decode_metadata(*metadata);
  }
  if (auto spec = document.object("spec", true)) {
    decode_spec(*spec, profile.spec);
  }
  document.reject_unknown_fields("ClusterResourceProfile");
  return profile;
}

namespace {

void encode_network_and_storage(const ClusterProfileSpec& spec, DocumentWriter& out) {
  if (spec.network.bandwidth || spec.network.latency) {
    out.key("network");
    out.begin_object();
    if (spec.network.bandwidth) {
      out.field("bandwidth", spec.network.bandwidth->to_string());
    }
    if (spec.network.latency) {
      out.field("latency", spec.network.latency->to_string());
    }
    out.end_object();
  }
  if (!spec.storage.empty()) {
    out.key("storage");
    out.begin_list();
    for (const auto& storage : spec.storage) {
      out.begin_object();
      out.field("class", storage.storage_class);
      out.field("capacity", storage.capacity.to_string());
      out.end_object();
    }
    out.end_list();
  }
}

void encode_topology(const TopologySpec& topology, DocumentWriter& out) {
  if (topology.region.empty() && topology.zone.empty() && topology.node_group.empty()) {
    return;
  }
  out.key("topology");
  out.begin_object();
  const std::pair<const char*, const std::string*> fields[] = {
      {"region", &topology.region}, {"zone", &topology.zone}, {"nodeGroup", &topology.node_group}};
  for (const auto& [name, value] : fields) {
    if (!value->empty()) {
      out.field(name, *value);
    }
  }
  out.end_object();
}

}  // namespace

void encode_profile(const ClusterResourceProfile& profile, DocumentWriter& out) {
  const ClusterProfileSpec& spec = profile.spec;
  out.begin_object();
  out.field("apiVersion", kApiVersion);
  out.field("kind", "ClusterResourceProfile");
  encode_metadata(profile.metadata, out);
  out.key("spec");
  out.begin_object();
  out.field("clusterID", spec.cluster_id);
  if (!spec.kubernetes_version.empty()) {
    out.field("kubernetesVersion", spec.kubernetes_version);
  }
  if (!spec.network_plugin.empty()) {
    out.field("networkPlugin", spec.network_plugin);
  }
  out.field("machineType", spelling(kMachineTypes, spec.machine_type));
  if (spec.compute) {
    out.key("compute");
    out.begin_object();
    out.field("cpu", spec.compute->cpu.to_string());
    out.field("memory", spec.compute->memory.to_string());
    out.end_object();
  }
  if (!spec.accelerators.empty()) {
    out.key("accelerators");
    out.begin_list();
    for (const auto& accelerator : spec.accelerators) {
      encode_accelerator(accelerator, out);
    }
    out.end_list();
  }
  encode_network_and_storage(spec, out);
  encode_topology(spec.topology, out);
  if (spec.node_count) {
    out.field("nodeCount", *spec.node_count);
  }
  if (!spec.node_groups.empty()) {
    out.key("nodeGroups");
    out.begin_list();
    for (const auto& group : spec.node_groups) {
      encode_node_group(group, out);
    }
    out.end_list();
  }
  out.end_object();
  out.end_object();
}

}  // namespace unisched::model
