#include "tools/bench/flags.hpp"

#include <cstdlib>
#include <set>

namespace unisched::bench {
namespace {

// Number flags and the least value each takes (the most is 10,000,000).
const std::map<std::string, long> kNumbers = {{"clusters", 1},   {"nodes", 1},   {"deltas", 1},
                                              {"updates", 1},    {"window", 1},  {"gpus", 0},
                                              {"schedulers", 1}, {"seconds", 1}, {"agents-for", 1},
                                              {"sample", 0},     {"rate", 1}};
// Text flags and their allowed values (empty: any; the scenario or policy name is checked by
// whoever knows the names).
const std::map<std::string, std::set<std::string>> kTexts = {{"scenario", {}},
                                                             {"transport", {"caf", "grpc", "both"}},
                                                             {"mode", {"cluster", "node", "both"}},
                                                             {"policy", {}}};

}  // namespace

std::optional<Flags> Flags::parse(int argc, char** argv, std::string& problem) {
  Flags flags;
  for (int i = 1; i < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag.rfind("--", 0) != 0 || i + 1 >= argc) {
      problem = "expected --flag VALUE pairs, got \"" + flag + "\"";
      return std::nullopt;
    }
    const std::string name = flag.substr(2);
    const std::string value = argv[i + 1];
    if (const auto number = kNumbers.find(name); number != kNumbers.end()) {
      char* end = nullptr;
      const long parsed = std::strtol(value.c_str(), &end, 10);
      if (end == value.c_str() || *end != '\0' || parsed < number->second || parsed > 10'000'000) {
        problem = "--" + name + " must be a whole number from " + std::to_string(number->second) +
                  " to 10000000, not \"" + value + "\"";
        return std::nullopt;
      }
    } else if (const auto text = kTexts.find(name); text == kTexts.end()) {
      problem = "unknown flag --" + name;
      return std::nullopt;
    } else if (!text->second.empty() && !text->second.count(value)) {
      std::string allowed;
      for (const std::string& choice : text->second) {
        allowed += (allowed.empty() ? "" : ", ") + choice;
      }
      problem = "--" + name + " must be one of " + allowed + ", not \"" + value + "\"";
      return std::nullopt;
    }
    flags.values_[name] = value;
  }
  return flags;
}

int Flags::number(const std::string& name, int fallback) const {
  const auto found = values_.find(name);
  return found == values_.end() ? fallback : std::atoi(found->second.c_str());
}

std::string Flags::text(const std::string& name, const std::string& fallback) const {
  const auto found = values_.find(name);
  return found == values_.end() ? fallback : found->second;
}

}  // namespace unisched::bench
