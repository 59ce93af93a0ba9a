#include "runtime/hub_link.hpp"

#include <spdlog/spdlog.h>
#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>

#include <algorithm>
#include <cstdio>

namespace unisched::runtime {

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
  auto backoff = std::chrono::milliseconds(200);
  bool connected = true;
  while (poll_stop_signal(connected ? std::chrono::milliseconds(200) : backoff) == 0) {
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
      backoff = std::chrono::milliseconds(200);
    } else {
      backoff = std::min(backoff * 2, std::chrono::milliseconds(5000));
    }
  }
  return 0;
}

}  // namespace unisched::runtime
