#include "model/accelerator_names.hpp"
#include "model/manifest_codec.hpp"
#include "model/pod_template.hpp"

namespace unisched::model {
namespace {

ClusterSelector decode_selector(YamlObject& selector) {
  ClusterSelector out{selector.strings("regions"), selector.strings("zones"),
                      selector.strings("clusters")};
  selector.reject_unknown_fields();
  return out;
}

void encode_selector(std::string_view key, const ClusterSelector& selector, DocumentWriter& out) {
  if (selector.empty()) {
    return;
  }
  out.key(key);
  out.begin_object();
  encode_strings("regions", selector.regions, out);
  encode_strings("zones", selector.zones, out);
  encode_strings("clusters", selector.clusters, out);
  out.end_object();
}

AcceleratorRequest decode_accelerator_request(YamlObject& accelerator) {
  AcceleratorRequest out;
  const auto kind =
      accelerator.parsed<AcceleratorKind>("type", FieldErrorType::Invalid, parse_accelerator_type)
          .value_or(AcceleratorKind{});
  out.type = kind.type;
  out.resource = kind.resource;
  out.model = accelerator.string("model").value_or("");
  out.models = accelerator.strings("models");
  out.share = accelerator.quantity("share");
  out.count = accelerator.integer("count", !out.share).value_or(out.share ? 1 : 0);
  out.min_memory_per_device = accelerator.quantity("minMemoryPerGPU");
  if (const auto link = accelerator.parsed<Link>(
          "topology", FieldErrorType::NotSupported,
          [](const std::string& text) { return parse_link(text, true); })) {
    out.topology = link->kind;
    out.min_link_generation = link->generation;
  }
  accelerator.reject_unknown_fields();
  return out;
}

void encode_resources(const ResourceRequest& resources, DocumentWriter& out) {
  out.key("resources");
  out.begin_object();
  out.field("cpu", resources.cpu.to_string());
  out.field("memory", resources.memory.to_string());
  if (!resources.accelerators.empty()) {
    out.key("accelerators");
    out.begin_list();
    for (const auto& accelerator : resources.accelerators) {
      out.begin_object();
      out.field("type", accelerator_type_text({accelerator.type, accelerator.resource}));
      if (!accelerator.model.empty()) {
        out.field("model", accelerator.model);
      }
      encode_strings("models", accelerator.models, out);
      out.field("count", accelerator.count);
      if (accelerator.share) {
        out.field("share", accelerator.share->to_string());
      }
      if (accelerator.min_memory_per_device) {
        out.field("minMemoryPerGPU", accelerator.min_memory_per_device->to_string());
      }
      if (accelerator.topology) {
        out.field("topology", link_text({*accelerator.topology, accelerator.min_link_generation}));
      }
      out.end_object();
    }
    out.end_list();
  }
  if (!resources.host_ports.empty()) {
    out.key("hostPorts");
    out.begin_list();
    for (int64_t port : resources.host_ports) {
      out.integer(port);
    }
    out.end_list();
  }
  out.end_object();
}

void encode_placement(const PlacementSpec& placement, DocumentWriter& out) {
  if (placement.affinity.empty() && placement.anti_affinity.empty() && !placement.max_latency &&
      !placement.storage && !placement.machine_type) {
    return;
  }
  out.key("placement");
  out.begin_object();
  encode_selector("affinity", placement.affinity, out);
  encode_selector("antiAffinity", placement.anti_affinity, out);
  if (placement.max_latency) {
    out.field("maxLatency", placement.max_latency->to_string());
  }
  if (placement.storage) {
    out.key("storage");
    out.begin_object();
    out.field("class", placement.storage->storage_class);
    if (placement.storage->capacity) {
      out.field("capacity", placement.storage->capacity->to_string());
    }
    out.end_object();
  }
  if (placement.machine_type) {
    out.field("machineType", spelling(kMachineTypes, *placement.machine_type));
  }
  out.end_object();
}

void encode_distribution(const DistributionSpec& distribution, DocumentWriter& out) {
  out.key("distribution");
  out.begin_object();
  out.field("mode", spelling(kDistributionModes, distribution.mode));
  out.key("gang");
  out.boolean(distribution.gang);
  if (!distribution.weights.empty()) {
    out.key("weights");
    out.begin_list();
    for (const auto& weight : distribution.weights) {
      out.begin_object();
      out.field("cluster", weight.cluster);
      out.field("weight", weight.weight);
      out.end_object();
    }
    out.end_list();
  }
  out.end_object();
}

void decode_spec(YamlObject& spec, SchedulingRequestSpec& out) {
  out.replicas = spec.integer("replicas").value_or(out.replicas);
  out.priority = spec.integer("priority").value_or(out.priority);
  out.queue = spec.string("queue").value_or("");
  if (auto resources = spec.object("resources", true)) {
    out.resources.cpu = resources->quantity("cpu").value_or(Quantity());
    out.resources.memory = resources->quantity("memory").value_or(Quantity());
    for (auto& accelerator : resources->objects("accelerators")) {
      out.resources.accelerators.push_back(decode_accelerator_request(accelerator));
    }
    out.resources.host_ports = resources->integers("hostPorts");
    resources->reject_unknown_fields();
  }
  if (auto placement = spec.object("placement")) {
    if (auto affinity = placement->object("affinity")) {
      out.placement.affinity = decode_selector(*affinity);
    }
    if (auto anti_affinity = placement->object("antiAffinity")) {
      out.placement.anti_affinity = decode_selector(*anti_affinity);
    }
    out.placement.max_latency = placement->latency("maxLatency");
    if (auto storage = placement->object("storage")) {
      out.placement.storage =
          StorageRequirement{storage->string("class").value_or(""), storage->quantity("capacity")};
      storage->reject_unknown_fields();
    }
    out.placement.machine_type = placement->enumeration("machineType", kMachineTypes);
    placement->reject_unknown_fields();
  }
  if (auto distribution = spec.object("distribution")) {
    out.distribution.mode =
        distribution->enumeration("mode", kDistributionModes).value_or(out.distribution.mode);
    out.distribution.gang = distribution->boolean("gang").value_or(false);
    for (auto& weight : distribution->objects("weights")) {
      out.distribution.weights.push_back(ClusterWeight{weight.string("cluster").value_or(""),
                                                       weight.integer("weight", true).value_or(0)});
      weight.reject_unknown_fields();
    }
    distribution->reject_unknown_fields();
  }
  if (const YAML::Node* pod = spec.raw("template")) {
    out.pod_template = pod_template_json(*pod, spec.path().child("template"), spec.context());
  }
  spec.reject_unknown_fields();
}

}  // namespace

SchedulingRequest decode_request(YamlObject& document) {
  SchedulingRequest request;
  if (auto metadata = document.object("metadata", true)) {
    request.metadata = decode_metadata(*metadata);
  }
  if (auto spec = document.object("spec", true)) {
    decode_spec(*spec, request.spec);
  }
  document.reject_unknown_fields("SchedulingRequest");
  return request;
}

void encode_request(const SchedulingRequest& request, DocumentWriter& out) {
  out.begin_object();
  out.field("apiVersion", kApiVersion);
  out.field("kind", "SchedulingRequest");
  encode_metadata(request.metadata, out);
  out.key("spec");
  out.begin_object();
  out.field("replicas", request.spec.replicas);
  out.field("priority", request.spec.priority);
  if (!request.spec.queue.empty()) {
    out.field("queue", request.spec.queue);
  }
  encode_resources(request.spec.resources, out);
  encode_placement(request.spec.placement, out);
  encode_distribution(request.spec.distribution, out);
  if (!request.spec.pod_template.empty()) {
    out.key("template");
    write_pod_template(request.spec.pod_template, out);
  }
  out.end_object();
  out.end_object();
}

}  // namespace unisched::model
