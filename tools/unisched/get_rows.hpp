// What `unisched get clusters|requests|decisions` prints, one row per object: the table line
// (normal or wide), the object as JSON, and what must change for `-w` to print it again.
#pragma once

#include <string>
#include <vector>

#include "messages/unisched.pb.h"
#include "runtime/json_report.hpp"

namespace unisched::cli {

struct GetRow {
  std::string key;      ///< the object's identity: cluster id, request id, placement id
  std::string line;     ///< its table line (no line feed)
  std::string changes;  ///< what `-w` compares: its fields that are not clocks
  runtime::Json object;
};

/// The table's heading and the rows; `wide` adds the columns of `-o wide`.
struct GetTable {
  std::string heading;
  std::vector<GetRow> rows;
};

GetTable cluster_table(const v1::ClusterList& list, bool wide);
GetTable request_table(const v1::RequestList& list, bool wide);
GetTable decision_table(const v1::RequestList& list, bool wide);

/// JSON as YAML (block style), for `-o yaml`.
std::string json_as_yaml(const runtime::Json& value);

}  // namespace unisched::cli
