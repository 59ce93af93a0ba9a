#include "tools/bench/flags.hpp"

#include <CLI/CLI.hpp>

#include <cstdlib>
#include <set>

namespace unisched::bench {
namespace {

// Number flags and the least value each takes (the most is 10,000,000).
const std::map<std::string, long> kNumbers = {
    {"clusters", 1},   {"nodes", 1},   {"deltas", 1},     {"updates", 1},
    {"window", 1},     {"gpus", 0},    {"schedulers", 1}, {"seconds", 1},
    {"agents-for", 1}, {"sample", 0},  {"rate", 1},       {"pairs", 1},
    {"committers", 1}, {"writers", 1}, {"in-flight", 1},  {"audit-every", 1}};
// Text flags and their allowed values (empty: any; the scenario or policy name is checked by
// whoever knows the names).
const std::map<std::string, std::set<std::string>> kTexts = {{"scenario", {}},
                                                             {"transport", {"caf", "grpc", "both"}},
                                                             {"mode", {"cluster", "node", "both"}},
                                                             {"policy", {}},
                                                             {"storage", {"disk", "tmpfs", "both"}},
                                                             {"profiles", {}},
                                                             {"node-deltas", {"usage", "whole"}}};

}  // namespace

std::optional<Flags> Flags::parse(int argc, char** argv, std::string& problem) {
  CLI::App app{"unisched-bench", "unisched-bench"};
  app.set_help_flag();
  std::map<std::string, std::string> given;
  for (const auto& [name, least] : kNumbers) {
    app.add_option("--" + name, given[name])->check(CLI::Range(least, 10'000'000L));
  }
  for (const auto& [name, allowed] : kTexts) {
    CLI::Option* option = app.add_option("--" + name, given[name]);
    if (!allowed.empty()) {
      option->check(CLI::IsMember(allowed));
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& failure) {
    problem = failure.what();
    return std::nullopt;
  }
  Flags flags;
  for (const auto& [name, value] : given) {
    if (app.count("--" + name) > 0) {
      flags.values_[name] = value;
    }
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
