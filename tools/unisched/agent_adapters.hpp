// The adapters `unisched agent --adapter NAME` can run: sim (a simulated cluster from a profile),
// kubernetes (a real cluster through its API server) and slurm (through libslurm).
#pragma once

#include <chrono>
#include <memory>

#include "adapters/cluster_adapter.hpp"
#include "tools/unisched/cli.hpp"

namespace unisched::cli {

/// The adapter the flags ask for, connected; null after printing why not, with `exit_code` set
/// (2 for a usage error, 1 when the cluster cannot be reached or read).
std::shared_ptr<adapters::ClusterAdapter> make_adapter(const ParsedArgs& args,
                                                       std::chrono::milliseconds observe_interval,
                                                       int& exit_code);

/// The adapter flags, for the verb's help.
std::vector<Flag> adapter_flags();

}  // namespace unisched::cli
