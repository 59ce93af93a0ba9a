#include "model/pod_template.hpp"

#include <nlohmann/json.hpp>

#include <yaml-cpp/yaml.h>

namespace unisched::model {
namespace {

using Json = nlohmann::json;

Json to_json(const YAML::Node& node) {
  switch (yaml_type(node)) {
    case YamlType::Null:
      return nullptr;
    case YamlType::Bool:
      return node.as<bool>();
    case YamlType::Integer:
      return node.as<int64_t>();
    case YamlType::Number:
      return node.as<double>();
    case YamlType::String:
      return node.Scalar();
    case YamlType::List: {
      Json list = Json::array();
      for (const YAML::Node& item : node) {
        list.push_back(to_json(item));
      }
      return list;
    }
    case YamlType::Object: {
      Json object = Json::object();
      for (const auto& entry : node) {
        object[entry.first.Scalar()] = to_json(entry.second);
      }
      return object;
    }
  }
  return nullptr;
}

void write(const Json& value, DocumentWriter& out) {
  if (value.is_object()) {
    out.begin_object();
    for (const auto& [key, item] : value.items()) {
      out.key(key);
      write(item, out);
    }
    out.end_object();
  } else if (value.is_array()) {
    out.begin_list();
    for (const Json& item : value) {
      write(item, out);
    }
    out.end_list();
  } else if (value.is_boolean()) {
    out.boolean(value.get<bool>());
  } else if (value.is_number_integer()) {
    out.integer(value.get<int64_t>());
  } else if (value.is_string()) {
    out.string(value.get<std::string>());
  } else {
    out.string(value.dump());  // a float or null, as its JSON text
  }
}

}  // namespace

std::string pod_template_json(const YAML::Node& node, const FieldPath& path,
                              DecodeContext& context) {
  const auto invalid = [&](const FieldPath& at, const std::string& detail) {
    context.error(FieldErrorType::Invalid, at, {}, detail, node);
    return std::string();
  };
  if (yaml_type(node) != YamlType::Object) {
    return invalid(path, "must be a Kubernetes PodTemplateSpec (metadata and spec)");
  }
  const Json pod = to_json(node);
  const FieldPath containers_path = path.child("spec").child("containers");
  if (!pod.contains("spec") || !pod["spec"].is_object() || !pod["spec"].contains("containers") ||
      !pod["spec"]["containers"].is_array() || pod["spec"]["containers"].empty()) {
    return invalid(containers_path, "must list at least one container");
  }
  const Json& containers = pod["spec"]["containers"];
  for (size_t i = 0; i < containers.size(); ++i) {
    if (!containers[i].is_object() || !containers[i].contains("name") ||
        !containers[i]["name"].is_string() || containers[i]["name"].get<std::string>().empty()) {
      return invalid(containers_path.index(i).child("name"), "every container needs a name");
    }
  }
  return pod.dump();
}

void write_pod_template(std::string_view json, DocumentWriter& out) {
  write(Json::parse(json, nullptr, false), out);
}

}  // namespace unisched::model
