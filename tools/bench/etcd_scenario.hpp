// Bench scenario `etcd`: etcd's side (etcd_side.hpp) and unisched's side of the same work, in
// one run, with their ratios.
#pragma once

#include <string>

#include "tools/bench/flags.hpp"

namespace unisched::bench {

bool run_etcd(const Flags& flags, const std::string& self_command);

}  // namespace unisched::bench
