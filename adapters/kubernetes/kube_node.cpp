#include <algorithm>
#include <array>

#include "adapters/kubernetes/readers.hpp"
#include "model/accelerator_names.hpp"
#include "model/cluster_view.hpp"
#include "model/names.hpp"
#include "model/printable.hpp"
#include "model/quantity.hpp"

namespace unisched::adapters::kubernetes {
namespace {

/// Extended resources of an unknown kind above this many units are counters, not devices
/// (e.g. devices.kubevirt.io/kvm: 1k).
constexpr int64_t kMaxOtherDevices = 64;
/// More accelerators of one resource than any machine holds is a broken or hostile object (one
/// "nvidia.com/gpu: 1G" would otherwise make a billion devices): no devices are counted.
constexpr int64_t kMaxAcceleratorDevices = 1'024;

/// Labels a request may select by: where the node is, what it runs on, what it runs.
constexpr std::array<std::string_view, 12> kKeptLabels = {
    "topology.kubernetes.io/region",
    "topology.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/region",
    "failure-domain.beta.kubernetes.io/zone",
    "kubernetes.io/os",
    "kubernetes.io/arch",
    "node.kubernetes.io/instance-type",
    "beta.kubernetes.io/instance-type",
    "nvidia.com/gpu.product",
    "nvidia.com/mig.strategy",
    "amd.com/gpu.product-name",
    "kubernetes.io/hostname",
};

/// Labels that name a node's pool, in the order they are trusted.
constexpr std::array<std::string_view, 5> kPoolLabels = {
    "kubernetes.azure.com/agentpool", "agentpool", "eks.amazonaws.com/nodegroup",
    "cloud.google.com/gke-nodepool", "node.kubernetes.io/instance-type"};

bool kept_label(std::string_view key) {
  return std::find(kKeptLabels.begin(), kKeptLabels.end(), key) != kKeptLabels.end() ||
         key.rfind("node-role.kubernetes.io/", 0) == 0 || key.rfind("unisched.io/", 0) == 0;
}

std::string label(const std::map<std::string, std::string>& labels, const std::string& key) {
  const auto found = labels.find(key);
  return found == labels.end() ? std::string() : found->second;
}

/// GFD and AMD write memory as MiB ("40960") or with a unit ("192G"); bytes, 0 when unknown.
int64_t label_memory(const std::string& text, bool mebibytes) {
  const auto quantity = model::Quantity::parse(text);
  if (!quantity || quantity->sign() < 0) {
    return 0;
  }
  const int64_t value = quantity->value().value_or(0);
  const bool plain_number = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return c >= '0' && c <= '9';
  });
  return mebibytes && plain_number ? value * (int64_t{1} << 20) : value;
}

/// A MIG or vGPU profile's memory from its name ("3g.20gb": 20 GB, read as 10^9 bytes so that it
/// never promises more than the slice holds).
int64_t profile_memory(std::string_view profile) {
  const size_t dot = profile.find('.');
  const size_t gb = profile.rfind("gb");
  if (dot == std::string_view::npos || gb == std::string_view::npos || gb <= dot + 1) {
    return 0;
  }
  // More than a petabyte is no real slice: read as unknown, before the number overflows (found
  // by the kube_json fuzz target).
  constexpr int64_t kMostGigabytes = 1'000'000;
  int64_t value = 0;
  for (const char c : profile.substr(dot + 1, gb - dot - 1)) {
    if (c < '0' || c > '9') {
      return 0;
    }
    value = value * 10 + (c - '0');
    if (value > kMostGigabytes) {
      return 0;
    }
  }
  return value * 1'000'000'000;
}

/// The model and memory of each device of `resource`, from the vendor's labels.
struct DeviceShape {
  std::string model;
  int64_t memory_bytes = 0;
};

DeviceShape shape_of(const std::string& resource,
                     const std::map<std::string, std::string>& labels) {
  const std::string nvidia_product = label(labels, "nvidia.com/gpu.product");
  if (resource == "nvidia.com/gpu") {
    // With the "single" MIG strategy the product and memory labels already describe the slice.
    return {nvidia_product.empty() ? resource : nvidia_product,
            label_memory(label(labels, "nvidia.com/gpu.memory"), true)};
  }
  if (resource.rfind("nvidia.com/mig-", 0) == 0) {
    // Mixed strategy: the resource names the slice; its memory label may be named otherwise
    // (GFD labels mig-3g.21gb where the resource is mig-3g.20gb), so the name is the fallback.
    const std::string profile = resource.substr(std::string("nvidia.com/mig-").size());
    const int64_t labelled =
        label_memory(label(labels, "nvidia.com/mig-" + profile + ".memory"), true);
    return {(nvidia_product.empty() ? std::string("NVIDIA") : nvidia_product) + "-MIG-" + profile,
            labelled > 0 ? labelled : profile_memory(profile)};
  }
  if (resource.rfind("amd.com/", 0) == 0) {
    std::string product = label(labels, "amd.com/gpu.product-name");
    if (product.empty()) {
      product = label(labels, "beta.amd.com/gpu.product-name");
    }
    if (product.empty()) {
      product = "AMD-GPU";
    }
    const std::string partition = resource.substr(std::string("amd.com/").size());
    std::string vram = label(labels, "amd.com/gpu.vram");
    return {partition == "gpu" ? product : product + "-" + partition,
            partition == "gpu" ? label_memory(vram, false) : 0};
  }
  return {resource, 0};
}

/// Adds the devices of each extended resource the node offers.
void add_devices(const std::map<std::string, std::string>& allocatable,
                 const std::map<std::string, std::string>& labels, NodeReading& reading) {
  for (const auto& [resource, quantity] : allocatable) {
    if (resource.find('/') == std::string::npos || resource.rfind("requests.", 0) == 0) {
      continue;  // cpu, memory, pods, ephemeral-storage, hugepages-*
    }
    const auto kind = model::parse_accelerator_type(resource);
    const auto count = amount_of(resource, quantity);
    if (!kind || !count) {
      reading.notes.push_back("status.allocatable[" + resource + "]: not an extended resource");
      continue;
    }
    const int64_t most =
        kind->type == model::AcceleratorType::Other ? kMaxOtherDevices : kMaxAcceleratorDevices;
    if (*count > most) {
      reading.notes.push_back("status.allocatable[" + resource + "]: " + std::to_string(*count) +
                              " units: counted as no devices");
      continue;
    }
    const DeviceShape shape = shape_of(resource, labels);
    for (int64_t i = 0; i < *count; ++i) {
      model::Device device;
      device.type = kind->type;
      device.resource = model::Symbol(resource);
      device.model = model::Symbol(shape.model);
      device.memory_bytes = shape.memory_bytes;
      device.topology_group = static_cast<int32_t>(reading.node.devices.size());  // PCIe: alone
      reading.node.devices.push_back(std::move(device));
    }
  }
}

/// Whether the node's Ready condition is True.
bool ready(Element object) {
  Element status;
  bool is_ready = false;
  if (child(object, "status", status)) {
    each_item(status, "conditions", [&](Element condition) {
      if (text(condition, "type") == "Ready") {
        is_ready = text(condition, "status") == "True";
      }
    });
  }
  return is_ready;
}

/// Every label of the node into `all`, and those it keeps into `kept`.
void read_labels(Element metadata, NodeReading& reading, std::map<std::string, std::string>& all,
                 model::NodeLabels::Map& kept) {
  each_member(metadata, "labels", [&](std::string_view key, Element value) {
    std::string_view text_value;
    if (value.get(text_value) == simdjson::SUCCESS) {
      all.emplace(std::string(key), std::string(text_value));
    }
  });
  for (const auto& [key, value] : all) {
    if (!kept_label(key)) {
      continue;
    }
    // The API server allows no other labels; a value of megabytes would travel in every
    // snapshot of the cluster.
    if (const std::string why = model::check_label_key(key) + model::check_label_value(value);
        !why.empty()) {
      reading.notes.push_back("metadata.labels[" + model::quoted_brief(key) +
                              "]: left out: " + why);
      continue;
    }
    kept.emplace(key, value);
  }
  for (const std::string_view pool : kPoolLabels) {
    if (const std::string value = label(all, std::string(pool)); !value.empty()) {
      reading.node.node_group = value;
      break;
    }
  }
}

/// What the node runs, kept as labels: kubelet version, container runtime, provider.
void read_node_info(Element object, model::NodeLabels::Map& kept) {
  Element status;
  Element info;
  if (child(object, "status", status) && child(status, "nodeInfo", info)) {
    const std::pair<std::string_view, const char*> info_labels[] = {
        {"kubeletVersion", "unisched.io/kubelet-version"},
        {"containerRuntimeVersion", "unisched.io/container-runtime"},
        {"operatingSystem", "unisched.io/os"},
        {"architecture", "unisched.io/arch"}};
    for (const auto& [field_name, key] : info_labels) {
      if (const std::string_view value = text(info, field_name); !value.empty()) {
        kept[key] = std::string(value);
      }
    }
  }
  Element spec;
  if (child(object, "spec", spec)) {
    const std::string_view provider_id = text(spec, "providerID");
    if (const size_t scheme = provider_id.find("://"); scheme != std::string_view::npos) {
      kept["unisched.io/provider"] = std::string(provider_id.substr(0, scheme));
      kept["unisched.io/provider-id"] = std::string(provider_id);
    }
  }
}

void read_taints(Element spec, NodeReading& reading) {
  each_item(spec, "taints", [&](Element taint) {
    reading.node.taints.push_back(model::Taint{std::string(text(taint, "key")),
                                               std::string(text(taint, "value")),
                                               std::string(text(taint, "effect"))});
  });
}

}  // namespace

std::optional<int64_t> amount_of(std::string_view resource, const std::string& quantity) {
  const auto parsed = model::Quantity::parse(quantity);
  if (!parsed || parsed->sign() < 0 || !parsed->capped_from().empty()) {
    return std::nullopt;
  }
  if (resource == "cpu") {
    return parsed->milli_value();
  }
  return parsed->value();
}

model::Expected<NodeReading, std::string> read_node(Element object) {
  Element metadata;
  Element status;
  if (!child(object, "metadata", metadata) || text(metadata, "name").empty()) {
    return std::string("metadata.name: Required value");
  }
  NodeReading reading;
  reading.node.name = std::string(text(metadata, "name"));
  // Kubernetes' own rule for node names: one that breaks it (control characters included)
  // comes from a broken or hostile API server and would be printed everywhere.
  if (const std::string why = model::check_dns1123_subdomain(reading.node.name); !why.empty()) {
    return "metadata.name: Invalid value: " + model::quoted_brief(reading.node.name) + ": " + why;
  }
  reading.resource_version = std::string(text(metadata, "resourceVersion"));
  std::map<std::string, std::string> allocatable;
  if (child(object, "status", status)) {
    each_member(status, "allocatable", [&](std::string_view key, Element value) {
      allocatable.emplace(std::string(key), quantity_text(value));
    });
  }
  const std::pair<const char*, int64_t*> basics[] = {
      {"cpu", &reading.node.allocatable_cpu_milli},
      {"memory", &reading.node.allocatable_memory_bytes}};
  for (const auto& [resource, target] : basics) {
    const auto found = allocatable.find(resource);
    const auto amount =
        found == allocatable.end() ? std::nullopt : amount_of(resource, found->second);
    if (!amount || *amount > model::kMaxNodeAmount) {
      return "status.allocatable." + std::string(resource) + ": Invalid value: " +
             (found == allocatable.end() ? std::string("missing") : "\"" + found->second + "\"");
    }
    *target = *amount;
  }
  const auto pods =
      allocatable.count("pods") ? amount_of("pods", allocatable["pods"]) : std::nullopt;
  reading.node.max_pods = static_cast<int32_t>(std::min<int64_t>(pods.value_or(0), 1 << 20));
  std::map<std::string, std::string> labels;
  model::NodeLabels::Map kept;  // interned once, when complete
  read_labels(metadata, reading, labels, kept);
  read_node_info(object, kept);
  add_devices(allocatable, labels, reading);
  if (reading.node.devices.size() > model::kMaxNodeDevices) {
    return "status.allocatable: " + std::to_string(reading.node.devices.size()) +
           " devices in all, more than the " + std::to_string(model::kMaxNodeDevices) +
           " a node may offer";
  }
  Element spec;
  bool unschedulable = false;
  if (child(object, "spec", spec)) {
    read_taints(spec, reading);
    bool value = false;
    unschedulable = field(spec, "unschedulable").get(value) == simdjson::SUCCESS && value;
  }
  const bool is_ready = ready(object);
  reading.node.schedulable = !unschedulable && is_ready;
  if (!reading.node.devices.empty()) {
    kept[model::kWholeDevicesLabel] = "true";  // extended resources: whole units
  }
  if (!is_ready) {
    kept["unisched.io/not-ready"] = "true";
  }
  reading.node.labels = std::move(kept);
  return reading;
}

}  // namespace unisched::adapters::kubernetes
