// Each named scenario of unisched-bench: reads its flags (with its own defaults), runs, prints
// one JSON line per result on stdout and a summary on stderr. Returns false on a problem.
#pragma once

#include <string>
#include <vector>

#include "tools/bench/flags.hpp"

namespace unisched::bench {

struct Scenario {
  const char* name;
  const char* measures;  // one line for --help
  bool (*run)(const Flags& flags, const std::string& self_command);
};

/// In the order `--scenario all` runs them.
const std::vector<Scenario>& scenarios();

}  // namespace unisched::bench
