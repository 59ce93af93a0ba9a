#include "model/manifest_codec.hpp"

namespace unisched::model {

ObjectMeta decode_metadata(YamlObject& metadata) {
  ObjectMeta meta;
  meta.name = metadata.string("name").value_or("");
  meta.labels = metadata.string_map("labels");
  meta.annotations = metadata.string_map("annotations");
  metadata.reject_unknown_fields();
  return meta;
}

void encode_metadata(const ObjectMeta& metadata, DocumentWriter& out) {
  out.key("metadata");
  out.begin_object();
  out.field("name", metadata.name);
  encode_string_map("labels", metadata.labels, out);
  encode_string_map("annotations", metadata.annotations, out);
  out.end_object();
}

AcceleratorSpec decode_accelerator(YamlObject& accelerator) {
  AcceleratorSpec spec;
  spec.type = accelerator.enumeration("type", kAcceleratorTypes).value_or(AcceleratorType::GPU);
  spec.model = accelerator.string("model").value_or("");
  spec.count = accelerator.integer("count", true).value_or(0);
  spec.topology = accelerator.enumeration("topology", kInterconnects).value_or(Interconnect::PCIe);
  spec.memory_per_device = accelerator.quantity("memoryPerGPU", true).value_or(Quantity());
  accelerator.reject_unknown_fields();
  return spec;
}

void encode_accelerator(const AcceleratorSpec& accelerator, DocumentWriter& out) {
  out.begin_object();
  out.field("type", spelling(kAcceleratorTypes, accelerator.type));
  out.field("model", accelerator.model);
  out.field("count", accelerator.count);
  out.field("topology", spelling(kInterconnects, accelerator.topology));
  out.field("memoryPerGPU", accelerator.memory_per_device.to_string());
  out.end_object();
}

void encode_string_map(std::string_view key, const std::map<std::string, std::string>& map,
                       DocumentWriter& out) {
  if (map.empty()) {
    return;
  }
  out.key(key);
  out.begin_object();
  for (const auto& [name, value] : map) {
    out.field(name, value);
  }
  out.end_object();
}

void encode_strings(std::string_view key, const std::vector<std::string>& values,
                    DocumentWriter& out) {
  if (values.empty()) {
    return;
  }
  out.key(key);
  out.begin_list();
  for (const auto& value : values) {
    out.string(value);
  }
  out.end_list();
}

}  // namespace unisched::model
