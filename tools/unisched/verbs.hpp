// Every verb of the unisched binary, one file each.
#pragma once

#include "tools/unisched/cli.hpp"

namespace unisched::cli {

Verb agent_verb();
Verb get_verb();
Verb run_verb();
Verb serve_verb();
Verb shard_verb();
Verb apply_verb();
Verb submit_verb();
Verb describe_verb();
Verb validate_verb();
Verb replay_verb();
Verb version_verb();
Verb simulate_verb();

}  // namespace unisched::cli
