// How the tools print JSON (run, replay, get, describe, the bench lines): one library,
// nlohmann::ordered_json (fields keep the order they are written in), and keys in one style,
// the schema's snake_case field names. Protobuf messages go through protobuf's own printer with
// their field names kept. Invalid UTF-8 in a value prints as U+FFFD, never throws.
#pragma once

#include <google/protobuf/map.h>
#include <google/protobuf/message.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace unisched::runtime {

using Json = nlohmann::ordered_json;

/// `value` as text: on one line, or indented by `indent` spaces.
std::string dump_json(const Json& value, int indent = -1);

/// `message` as JSON with its proto field names (int64 fields are strings, as proto3's JSON
/// mapping has them; fields at their default are left out).
Json proto_json(const google::protobuf::Message& message);

/// A quota ledger's amounts (memory in bytes, the rest in milli-units) as people write them
/// ("64Gi", "8", "500m"), by resource.
Json quota_amounts_json(const google::protobuf::Map<std::string, int64_t>& amounts);

/// `value` rounded to `digits` significant digits, for figures whose noise is not worth printing.
double significant(double value, int digits);

}  // namespace unisched::runtime
