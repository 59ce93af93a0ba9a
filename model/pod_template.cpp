#include "model/pod_template.hpp"

#include <cmath>

#include <nlohmann/json.hpp>

#include <yaml-cpp/yaml.h>

namespace unisched::model {
namespace {

using Json = nlohmann::json;

/// The node as JSON. A number JSON cannot carry as written (an integer past 64 bits, a number
/// past a double's range) is reported at its path and becomes null (found by fuzz_manifest:
/// yaml-cpp's conversion threw).
Json to_json(const YAML::Node& node, const FieldPath& path, DecodeContext& context) {
  switch (yaml_type(node)) {
    case YamlType::Null:
      return nullptr;
    case YamlType::Bool:
      return node.as<bool>();
    case YamlType::Integer: {
      const auto value = int64_of(node.Scalar());
      if (!value) {
        context.error(FieldErrorType::Invalid, path, node.Scalar(),
                      "out of range for a 64-bit integer", node);
        return nullptr;
      }
      return *value;
    }
    case YamlType::Number: {
      double value = 0;
      if (!YAML::convert<double>::decode(node, value) || !std::isfinite(value)) {
        context.error(FieldErrorType::Invalid, path, node.Scalar(), "not a finite number", node);
        return nullptr;
      }
      return value;
    }
    case YamlType::String:
      return node.Scalar();
    case YamlType::List: {
      Json list = Json::array();
      for (size_t i = 0; i < node.size(); ++i) {
        list.push_back(to_json(node[i], path.index(i), context));
      }
      return list;
    }
    case YamlType::Object: {
      Json object = Json::object();
      for (const auto& entry : node) {
        const std::string& key = entry.first.Scalar();
        object[key] = to_json(entry.second, path.child(key), context);
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
  const size_t errors_before = context.errors().size();
  const Json pod = to_json(node, path, context);
  if (context.errors().size() > errors_before) {
    return std::string();
  }
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
