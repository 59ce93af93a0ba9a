// Staying joined to a hub from a long-running process (agent, shard): join once, then watch the
// connection, and when it drops reconnect with backoff (200 ms doubling to 5 s) and join again,
// until SIGINT or SIGTERM.
#pragma once

#include <caf/fwd.hpp>

#include <functional>
#include <string>

#include "runtime/network.hpp"

namespace unisched::runtime {

/// Joins the hub with `join(hub, first)` (true when accepted; `first` is true for the first
/// attempt, whose failure should be reported) and keeps it joined. Returns 1 when the first
/// connection or join fails, 0 after a stop signal.
int stay_joined(caf::actor_system& system, const Endpoint& hub, const TlsFiles& tls,
                const std::function<bool(const caf::actor& hub, bool first)>& join);

}  // namespace unisched::runtime
