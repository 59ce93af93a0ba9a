// unisched-bench's command line, parsed by CLI11: --name VALUE flags, checked once, read by each
// scenario with its own defaults.
#pragma once

#include <map>
#include <optional>
#include <string>

namespace unisched::bench {

class Flags {
 public:
  /// Nullopt and `problem` set when a flag is unknown, lacks its value or a number is bad.
  static std::optional<Flags> parse(int argc, char** argv, std::string& problem);

  bool given(const std::string& name) const { return values_.count(name) > 0; }
  int number(const std::string& name, int fallback) const;
  std::string text(const std::string& name, const std::string& fallback) const;

 private:
  std::map<std::string, std::string> values_;
};

}  // namespace unisched::bench
