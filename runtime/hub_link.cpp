#include "runtime/hub_link.hpp"

#include <spdlog/spdlog.h>
#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>

#include <cstdio>

#include "runtime/reconnect_backoff.hpp"

namespace unisched::runtime {

/// How often a joined process looks whether its connection to the hub went down.
constexpr std::chrono::milliseconds kConnectionCheck{200};

int stay_joined(caf::actor_system& system, const Endpoint& hub, const TlsFiles& tls,
                const std::function<bool(const runtime::HubActor& hub, bool first)>& join) {
  std::string error;
  const auto first = connect(system, hub, tls, error);
  if (!first) {
    std::fprintf(stderr, "error: cannot reach the hub at %s: %s\n", hub.to_string().c_str(),
                 error.c_str());
    return 1;
  }
  if (!join(*first, true)) {
    return 1;
  }
  caf::scoped_actor watcher{system};
  watcher->monitor(*first);  // down when the connection to the hub is lost
  ReconnectBackoff backoff;
  bool connected = true;
  while (poll_stop_signal(connected ? kConnectionCheck : backoff.current()) == 0) {
    watcher->receive(
        [&](caf::down_msg&) {
          spdlog::warn("lost the hub at {}; reconnecting", hub.to_string());
          connected = false;
        },
        caf::after(std::chrono::milliseconds(0)) >> [] {});
    if (connected) {
      continue;
    }
    std::string ignored;
    const auto again = connect(system, hub, tls, ignored);
    if (again && join(*again, false)) {
      spdlog::info("reconnected to {}", hub.to_string());
      watcher->monitor(*again);
      connected = true;
      backoff.succeeded();
    } else {
      backoff.failed();
    }
  }
  return 0;
}

}  // namespace unisched::runtime
