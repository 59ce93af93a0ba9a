// The --tls-cert/--tls-key/--tls-ca flags every networked verb shares.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runtime/network.hpp"
#include "tools/unisched/cli.hpp"

namespace unisched::cli {

std::vector<Flag> tls_flags();

/// The TLS files named on the command line (none: plain TCP); nullopt, after printing why, when
/// they are incomplete or unreadable.
std::optional<runtime::TlsFiles> tls_files(const ParsedArgs& args);

/// The hub a joining role (agent, shard) must be given with --hub; nullopt after printing why.
std::optional<runtime::Endpoint> required_hub(const ParsedArgs& args);

/// The switch that lets a role listen beyond loopback without TLS.
Flag insecure_plaintext_flag();

/// Whether a role may listen at `endpoint` (given as --`flag`): always on loopback or with TLS;
/// beyond loopback without TLS only with --insecure-plaintext-beyond-loopback, and then loudly.
/// Prints why not when it may not.
bool may_listen(const ParsedArgs& args, const runtime::TlsFiles& tls,
                const runtime::Endpoint& endpoint, const std::string& flag);

/// --metrics; `status_page`: the role also serves the status page at / (the hub does).
Flag metrics_flag(bool status_page);
/// --metrics HOST:PORT, and its endpoint read from the flags (a warning beyond loopback);
/// nullopt with `error` set when it is not HOST:PORT.
std::optional<runtime::Endpoint> parse_metrics_endpoint(const ParsedArgs& args, std::string& error);

}  // namespace unisched::cli
