// Staying joined to a hub from a long-running process (agent, shard): join once, then watch the
// connection, and when it drops reconnect with backoff (200 ms doubling to 5 s) and join again,
// until SIGINT or SIGTERM.
#pragma once

#include <spdlog/spdlog.h>
#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>

#include <chrono>
#include <cstdio>
#include <functional>
#include <string>

#include "runtime/network.hpp"

namespace unisched::runtime {

/// How long a joiner waits for the hub's answer to a join: a hub taking many clusters back
/// after its own restart answers late.
inline constexpr std::chrono::seconds kJoinWait{15};

/// Joins the hub with `join(hub, first)` (true when accepted; `first` is true for the first
/// attempt, whose failure should be reported) and keeps it joined. Returns 1 when the first
/// connection or join fails, 0 after a stop signal.
int stay_joined(caf::actor_system& system, const Endpoint& hub, const TlsFiles& tls,
                const std::function<bool(const runtime::HubActor& hub, bool first)>& join);

/// stay_joined() where joining is asking the hub `request...` and a `Reply` is the answer.
/// `who` names the joiner in messages ("cluster t4-useast"): a refusal of the first attempt
/// is printed as "error: the hub refused WHO: REASON", a success is logged.
template <class Reply, class... Ts>
int stay_joined(caf::actor_system& system, const Endpoint& hub, const TlsFiles& tls,
                const std::string& who, const Ts&... request) {
  return stay_joined(system, hub, tls, [&](const runtime::HubActor& hub_actor, bool first) {
    caf::scoped_actor self{system};
    bool joined = false;
    self->request(hub_actor, kJoinWait, request...)
        .receive([&](Reply&) { joined = true; },
                 [&](caf::error& refusal) {
                   if (first) {
                     std::fprintf(stderr, "error: the hub refused %s: %s\n", who.c_str(),
                                  system.render(refusal).c_str());
                   }
                 });
    if (joined && first) {
      spdlog::info("{} registered with {}", who, hub.to_string());
    }
    return joined;
  });
}

}  // namespace unisched::runtime
