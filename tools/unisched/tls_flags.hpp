// The --tls-cert/--tls-key/--tls-ca flags every networked verb shares.
#pragma once

#include <optional>
#include <vector>

#include "runtime/network.hpp"
#include "tools/unisched/cli.hpp"

namespace unisched::cli {

std::vector<Flag> tls_flags();

/// The TLS files named on the command line (none: plain TCP); nullopt, after printing why, when
/// they are incomplete or unreadable.
std::optional<runtime::TlsFiles> tls_files(const ParsedArgs& args);

}  // namespace unisched::cli
