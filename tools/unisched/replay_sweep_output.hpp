// `unisched replay` over several policies and seeds at once (runtime/replay_sweep): its flags
// and what it prints.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runtime/replay.hpp"
#include "tools/unisched/cli.hpp"

namespace unisched::cli {

struct SweepFlags {
  std::vector<std::string> policies;  ///< --policy A,B,...
  std::vector<uint64_t> seeds;        ///< --seeds FIRST-LAST or S,S,...
  int jobs = 1;                       ///< --jobs
  int load = 100;                     ///< --at: the arrived load the table compares at
  std::string baseline;               ///< --baseline: the policy each is paired against
};

/// Whether the flags ask for a sweep (more than one policy, or --seeds).
bool wants_sweep(const ParsedArgs& args);

/// nullopt, with `error` naming the flag, when one is malformed.
std::optional<SweepFlags> read_sweep_flags(const ParsedArgs& args, std::string& error);

/// Runs the sweep over `options`' trace and split and prints it; the exit status.
int run_replay_sweep(const SweepFlags& flags, const runtime::ReplayOptions& options,
                     const std::string& partition, bool json);

/// The sweep's flags, for the replay verb's list.
std::vector<Flag> sweep_flags();

}  // namespace unisched::cli
