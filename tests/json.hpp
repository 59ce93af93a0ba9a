// Reading the JSON the tools print, with a real JSON parser.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace unisched::testing {

using Json = nlohmann::json;

/// `text` parsed; a discarded value (is_discarded()) when it is not JSON.
inline Json parse_json(const std::string& text) {
  return Json::parse(text, nullptr, false);
}

/// The integer at `key`: a number, or a string of digits (proto3's JSON writes 64-bit integers
/// so); 0 when absent, as proto3's JSON leaves out fields at their default.
inline int64_t number(const Json& object, const std::string& key) {
  if (!object.is_object() || !object.contains(key)) {
    return 0;
  }
  const Json& value = object.at(key);
  return value.is_string() ? std::stoll(value.get<std::string>()) : value.get<int64_t>();
}

/// The string at `key`; empty when absent.
inline std::string text(const Json& object, const std::string& key) {
  return object.is_object() && object.contains(key) ? object.at(key).get<std::string>() : "";
}

}  // namespace unisched::testing
