#include "model/manifest_codec.hpp"

#include "model/accelerator_names.hpp"

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
  const auto kind =
      accelerator.parsed<AcceleratorKind>("type", FieldErrorType::Invalid, parse_accelerator_type)
          .value_or(AcceleratorKind{});
  spec.type = kind.type;
  spec.resource = kind.resource;
  spec.model = accelerator.string("model").value_or("");
  spec.count = accelerator.integer("count", true).value_or(0);
  const auto link =
      accelerator.parsed<Link>("topology", FieldErrorType::NotSupported,
                               [](const std::string& text) { return parse_link(text, false); });
  spec.topology = link ? link->kind : Interconnect::PCIe;
  spec.link_generation = link ? link->generation : 0;
  spec.memory_per_device = accelerator.quantity("memoryPerGPU", true).value_or(Quantity());
  accelerator.reject_unknown_fields();
  return spec;
}

void encode_accelerator(const AcceleratorSpec& accelerator, DocumentWriter& out) {
  out.begin_object();
  out.field("type", accelerator_type_text({accelerator.type, accelerator.resource}));
  out.field("model", accelerator.model);
  out.field("count", accelerator.count);
  out.field("topology", link_text({accelerator.topology, accelerator.link_generation}));
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
