// The protocol's failures as codes. Every refusal an actor sends is one of these, with a detail
// for people; callers branch on the code, never on the text. Each code maps once to a gRPC
// status (runtime/grpc_service) and once to a CLI exit code (cli_exit_code below).
#pragma once

#include <caf/error.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace caf {
class actor_system_config;
}

namespace unisched::messages {

enum class Error : uint8_t {
  /// A field is missing or malformed; the detail names it ("identity.cluster_id: ...").
  InvalidArgument = 1,
  /// A token is missing or wrong, or a sender may not ask this.
  Unauthenticated,
  /// Another agent holds the cluster, or a shard of that id has joined.
  AlreadyRegistered,
  /// No such cluster, request or shard.
  NotFound,
  /// Not now: the cluster is being started on a new home. Try again.
  Unavailable,
};

/// "invalid_argument", "unauthenticated", ...
std::string to_string(Error code);

/// The error sent for `code`, with `detail` for people.
caf::error make_error(Error code, std::string detail);

/// The code of `error` when it is one of these; nullopt for CAF's own errors.
std::optional<Error> error_code(const caf::error& error);

/// The detail of one of these errors; CAF's own rendering for any other.
std::string error_detail(const caf::error& error);

/// The exit code a command-line client ends with when refused so: 1 invalid argument, 3 not
/// found, 4 unauthenticated, 5 already registered, 6 unavailable (try again); 1 for any other.
int cli_exit_code(const caf::error& error);

/// Lets the actor system render these errors as "code: detail".
void register_error_category(caf::actor_system_config& config);

}  // namespace unisched::messages
