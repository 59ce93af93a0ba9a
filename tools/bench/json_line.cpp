#include "tools/bench/json_line.hpp"

#include <cmath>
#include <cstdio>
#include <thread>

#include "tools/bench/heap.hpp"

namespace unisched::bench {

JsonLine::JsonLine(const std::string& scenario) {
  text("scenario", scenario);
  integer("cores", std::thread::hardware_concurrency());
  text("allocator", allocator_name());
  text("heap_pages", heap_pages_name());
}

JsonLine& JsonLine::text(const std::string& key, const std::string& value) {
  object_[key] = value;
  return *this;
}

JsonLine& JsonLine::integer(const std::string& key, int64_t value) {
  object_[key] = value;
  return *this;
}

JsonLine& JsonLine::number(const std::string& key, double value) {
  if (!std::isfinite(value)) {
    object_[key] = nullptr;
  } else if (std::fabs(value) >= 1e4) {
    object_[key] = std::round(value);
  } else {
    object_[key] = runtime::significant(value, 4);
  }
  return *this;
}

JsonLine& JsonLine::flag(const std::string& key, bool value) {
  object_[key] = value;
  return *this;
}

void JsonLine::print() const {
  std::printf("%s\n", runtime::dump_json(object_).c_str());
  std::fflush(stdout);
}

}  // namespace unisched::bench
