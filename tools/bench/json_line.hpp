// One benchmark result as one JSON object on one line: the scenario, the machine's core count,
// the allocator linked, then the parameters and figures in the order they were added.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/json_report.hpp"

namespace unisched::bench {

class JsonLine {
 public:
  explicit JsonLine(const std::string& scenario);
  JsonLine& text(const std::string& key, const std::string& value);
  JsonLine& integer(const std::string& key, int64_t value);
  /// Four significant digits (whole numbers from 10,000 up stay whole); null when not finite.
  JsonLine& number(const std::string& key, double value);
  JsonLine& flag(const std::string& key, bool value);
  /// Writes the object and a newline to stdout, flushed (a reader may be waiting for it).
  void print() const;

 private:
  runtime::Json object_ = runtime::Json::object();
};

}  // namespace unisched::bench
