#include "tools/bench/json_line.hpp"

#include <cmath>
#include <cstdio>
#include <thread>

namespace unisched::bench {

JsonLine::JsonLine(const std::string& scenario) {
  text("scenario", scenario);
  integer("cores", std::thread::hardware_concurrency());
}

JsonLine& JsonLine::raw(const std::string& key, const std::string& json) {
  body_ += (body_.empty() ? "" : ", ") + ("\"" + key + "\": ") + json;
  return *this;
}

JsonLine& JsonLine::text(const std::string& key, const std::string& value) {
  std::string quoted = "\"";
  for (const char c : value) {
    if (c == '"' || c == '\\') {
      quoted += '\\';
    }
    quoted += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
  }
  return raw(key, quoted + "\"");
}

JsonLine& JsonLine::integer(const std::string& key, int64_t value) {
  return raw(key, std::to_string(value));
}

JsonLine& JsonLine::number(const std::string& key, double value) {
  if (!std::isfinite(value)) {
    return raw(key, "null");
  }
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.4g", value);
  // %g drops digits of large figures (1.234e+06); keep whole numbers whole.
  if (std::fabs(value) >= 1e4) {
    std::snprintf(buffer, sizeof buffer, "%.0f", value);
  }
  return raw(key, buffer);
}

JsonLine& JsonLine::flag(const std::string& key, bool value) {
  return raw(key, value ? "true" : "false");
}

void JsonLine::print() const {
  std::printf("{%s}\n", body_.c_str());
  std::fflush(stdout);
}

}  // namespace unisched::bench
