#include "runtime/json_report.hpp"

#include <google/protobuf/util/json_util.h>

#include <cmath>

#include "model/scheduling_quota.hpp"

namespace unisched::runtime {

std::string dump_json(const Json& value, int indent) {
  return value.dump(indent, ' ', false, Json::error_handler_t::replace);
}

Json proto_json(const google::protobuf::Message& message) {
  std::string text;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  if (!google::protobuf::util::MessageToJsonString(message, &text, options).ok()) {
    return Json::object();
  }
  return Json::parse(text, nullptr, false);
}

double significant(double value, int digits) {
  if (value == 0 || !std::isfinite(value)) {
    return value;
  }
  const double scale = std::pow(10.0, digits - 1 - std::floor(std::log10(std::fabs(value))));
  return std::round(value * scale) / scale;
}

Json quota_amounts_json(const google::protobuf::Map<std::string, int64_t>& amounts) {
  Json out = Json::object();
  for (const auto& [resource, amount] : amounts) {
    out[resource] = model::quota_amount_text(resource, amount);
  }
  return out;
}

}  // namespace unisched::runtime
