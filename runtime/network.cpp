#include "runtime/network.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/io/middleman.hpp>

#include <csignal>

#include "messages/caf_types.hpp"

namespace unisched::runtime {

std::optional<Endpoint> parse_endpoint(const std::string& text, std::string& error) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) {
    error = "\"" + text + "\" is not HOST:PORT";
    return std::nullopt;
  }
  const std::string port = text.substr(colon + 1);
  if (port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
      std::stoi(port) > 65535) {
    error = "\"" + port + "\" is not a port (0..65535)";
    return std::nullopt;
  }
  return Endpoint{text.substr(0, colon), static_cast<uint16_t>(std::stoi(port))};
}

bool is_loopback(const std::string& host) {
  return host == "localhost" || host == "::1" || host == "[::1]" || host.rfind("127.", 0) == 0;
}

std::unique_ptr<caf::actor_system> make_networked_system(caf::actor_system_config& config) {
  messages::register_message_types(config);
  config.load<caf::io::middleman>();
  return std::make_unique<caf::actor_system>(config);
}

namespace {

sigset_t stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

}  // namespace

void block_stop_signals() {
  const sigset_t set = stop_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

int poll_stop_signal(std::chrono::milliseconds timeout) {
  const sigset_t set = stop_signals();
  timespec wait{static_cast<time_t>(timeout.count() / 1000),
                static_cast<long>((timeout.count() % 1000) * 1'000'000)};
  const int signal = sigtimedwait(&set, nullptr, &wait);
  return signal > 0 ? signal : 0;
}

int wait_for_stop_signal() {
  const sigset_t set = stop_signals();
  int signal = 0;
  sigwait(&set, &signal);
  return signal;
}

}  // namespace unisched::runtime
