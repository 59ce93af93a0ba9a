// What both gRPC services of the centre do on every call: read call metadata, bound the time
// the centre may take, ask an actor from a gRPC thread, and turn the centre's errors into gRPC
// statuses. Internal to runtime/ (it includes CAF and gRPC).
#pragma once

#include <grpcpp/grpcpp.h>
#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <utility>

#include "messages/caf_types.hpp"

namespace unisched::runtime {

inline constexpr std::chrono::seconds kCentreTimeout{10};

/// The value of call metadata `key`; empty when absent.
std::string call_metadata(const grpc::ServerContext* context, const std::string& key);

/// How long the centre may take for a call: at most kCentreTimeout, and never past the
/// caller's deadline.
std::chrono::milliseconds time_left(const grpc::ServerContext* context);

/// The gRPC status for a refusal from the centre: each protocol error code maps to one status;
/// anything else (a timeout, a lost actor) is UNAVAILABLE, since trying again may work.
grpc::Status status_of(const caf::error& error, const std::string& context = {});

/// Asks `target` from a thread outside the actor system; the reply, or the error in `error`.
template <class Reply, class Handle, class... Ts>
std::optional<Reply> ask(caf::actor_system& system, const Handle& target,
                         std::chrono::milliseconds timeout, caf::error& error, Ts&&... xs) {
  caf::scoped_actor self{system};
  std::optional<Reply> reply;
  self->request(target, timeout, std::forward<Ts>(xs)...)
      .receive([&](Reply& answer) { reply = std::move(answer); },
               [&](caf::error& failure) { error = std::move(failure); });
  return reply;
}

}  // namespace unisched::runtime
