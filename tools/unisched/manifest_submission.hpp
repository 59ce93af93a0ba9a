// Sending manifest files to a hub, shared by `unisched apply` and `unisched submit`.
#pragma once

#include "tools/unisched/cli.hpp"

namespace unisched::cli {

/// Sends every -f file to the hub; with `apply`, requests already accepted with the same spec
/// are left unchanged instead of refused. With --wait, waits for every accepted request's
/// decision. Exit status: 0 when everything was accepted (and, with --wait, placed in full).
int send_manifests(const ParsedArgs& args, bool apply);

/// -f, --wait, --timeout and the hub flags.
std::vector<Flag> manifest_submission_flags(bool with_wait);

}  // namespace unisched::cli
