#include "runtime/network.hpp"

#include <spdlog/spdlog.h>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/io/middleman.hpp>
#include <caf/openssl/manager.hpp>
#include <caf/openssl/publish.hpp>
#include <caf/openssl/remote_actor.hpp>
#include <caf/send.hpp>

#include <arpa/inet.h>

#include <csignal>
#include <fstream>

#include "actors/actor_types.hpp"
#include "messages/caf_types.hpp"
#include "runtime/basp_guard.hpp"
#include "runtime/openssl_hooks.hpp"

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
  // Addresses only: a name such as "127.example.com" may resolve anywhere.
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) {
    return (ntohl(v4.s_addr) >> 24) == 127;
  }
  const std::string bare = host.size() > 2 && host.front() == '[' && host.back() == ']'
                               ? host.substr(1, host.size() - 2)
                               : host;
  in6_addr v6{};
  return host == "localhost" ||
         (inet_pton(AF_INET6, bare.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6));
}

std::string TlsFiles::problem() const {
  const int given = !certificate.empty() + !key.empty() + !ca.empty();
  if (given == 0) {
    return {};
  }
  if (given != 3) {
    return "--tls-cert, --tls-key and --tls-ca go together";
  }
  for (const std::string* file : {&certificate, &key, &ca}) {
    if (!std::ifstream(*file)) {
      return "cannot read \"" + *file + "\"";
    }
  }
  return {};
}

std::unique_ptr<caf::actor_system> make_networked_system(caf::actor_system_config& config,
                                                         const TlsFiles& tls) {
  if (!basp_guard_active()) {
    spdlog::critical(
        "the guard on CAF's remote messaging is not in place (caf::io::basp::valid is not this "
        "executable's): refusing to open the network");
    return nullptr;
  }
  actors::configure_actor_system(config);
  config.load<caf::io::middleman>();
  if (tls.enabled()) {
    if (!openssl_hooks_active()) {
      spdlog::warn(
          "TLS: OpenSSL's I/O functions were not found; connections may drop when a "
          "peer exits, and the TLS 1.2 floor is only what OpenSSL's configuration sets");
    }
    config.openssl_certificate = tls.certificate;
    config.openssl_key = tls.key;
    config.openssl_cafile = tls.ca;
    config.load<caf::openssl::manager>();
  }
  return std::make_unique<caf::actor_system>(config);
}

namespace {

template <class Handle>
std::optional<uint16_t> publish_handle(caf::actor_system& system, const Handle& actor,
                                       const Endpoint& endpoint, const TlsFiles& tls,
                                       std::string& error) {
  auto port = tls.enabled()
                  ? caf::openssl::publish(actor, endpoint.port, endpoint.host.c_str(), true)
                  : system.middleman().publish(actor, endpoint.port, endpoint.host.c_str(), true);
  if (!port) {
    error = system.render(port.error());
    return std::nullopt;
  }
  return *port;
}

}  // namespace

std::optional<uint16_t> publish(caf::actor_system& system, const runtime::HubActor& actor,
                                const Endpoint& endpoint, const TlsFiles& tls, std::string& error) {
  return publish_handle(system, actor, endpoint, tls, error);
}

std::optional<uint16_t> publish(caf::actor_system& system, const actors::ShardActor& actor,
                                const Endpoint& endpoint, const TlsFiles& tls, std::string& error) {
  return publish_handle(system, actor, endpoint, tls, error);
}

std::optional<runtime::HubActor> connect(caf::actor_system& system, const Endpoint& endpoint,
                                         const TlsFiles& tls, std::string& error) {
  auto actor =
      tls.enabled()
          ? caf::openssl::remote_actor<runtime::HubActor>(system, endpoint.host, endpoint.port)
          : system.middleman().remote_actor<runtime::HubActor>(endpoint.host, endpoint.port);
  if (!actor) {
    error = system.render(actor.error());
    return std::nullopt;
  }
  return *actor;
}

void connect_async(caf::actor_system& system, const std::string& endpoint_text,
                   const TlsFiles& tls) {
  std::string error;
  const auto endpoint = parse_endpoint(endpoint_text, error);
  if (!endpoint) {
    spdlog::warn("cannot connect to {}: {}", endpoint_text, error);
    return;
  }
  const auto& middleman =
      tls.enabled() ? system.openssl_manager().actor_handle() : system.middleman().actor_handle();
  caf::anon_send(middleman, caf::connect_atom_v, endpoint->host, endpoint->port);
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
