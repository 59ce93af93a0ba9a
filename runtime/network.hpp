// What long-running roles need from the outside world: HOST:PORT endpoints, an actor system with
// CAF's middleman (remote messaging over TCP), and a clean stop on SIGINT/SIGTERM.
#pragma once

#include <caf/fwd.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "runtime/hub_interface.hpp"

namespace unisched::runtime {

struct Endpoint {
  std::string host;
  uint16_t port = 0;
  std::string to_string() const { return host + ":" + std::to_string(port); }
};

/// "127.0.0.1:4242"; nullopt with `error` set when it is not HOST:PORT with a port 0..65535.
std::optional<Endpoint> parse_endpoint(const std::string& text, std::string& error);

/// An address of this host only: 127.0.0.0/8, ::1, or "localhost".
bool is_loopback(const std::string& host);

/// Mutual TLS: this side's certificate and key, and the CA that the other side's must come from.
/// All three set, or none (plain TCP).
struct TlsFiles {
  std::string certificate;
  std::string key;
  std::string ca;
  bool enabled() const { return !certificate.empty(); }
  /// Empty when the three are all set and readable, or all unset; otherwise the problem.
  std::string problem() const;
};

/// An actor system that can publish actors and reach remote ones (over TLS when `tls` is
/// enabled), with every unisched message type announced; nullptr (logged) when the guard on
/// remote messaging (basp_guard.hpp) is not in place, so no process talks BASP unguarded.
std::unique_ptr<caf::actor_system> make_networked_system(caf::actor_system_config& config,
                                                         const TlsFiles& tls);

/// Publishes `actor` at `endpoint` (port 0: any free port) with its interface, which the other
/// side checks as it connects; the port in use, or an error text.
std::optional<uint16_t> publish(caf::actor_system& system, const runtime::HubActor& actor,
                                const Endpoint& endpoint, const TlsFiles& tls, std::string& error);
std::optional<uint16_t> publish(caf::actor_system& system, const actors::ShardActor& actor,
                                const Endpoint& endpoint, const TlsFiles& tls, std::string& error);

/// The hub published at `endpoint`, or nullopt with an error text (also when what is published
/// there is not a hub of this protocol).
std::optional<runtime::HubActor> connect(caf::actor_system& system, const Endpoint& endpoint,
                                         const TlsFiles& tls, std::string& error);

/// Opens a connection to the node at `endpoint` (HOST:PORT) in the background. CAF routes
/// messages over a direct connection when there is one, so this moves traffic to actors of that
/// node off the indirect path (e.g. through the hub). Failures are only logged: the indirect
/// path keeps working.
void connect_async(caf::actor_system& system, const std::string& endpoint, const TlsFiles& tls);

/// Blocks SIGINT and SIGTERM in this thread and every thread started after it; call before the
/// actor system starts. wait_for_stop_signal() then returns the signal once one arrives.
void block_stop_signals();
int wait_for_stop_signal();

/// The stop signal if one arrives within `timeout`, else 0.
int poll_stop_signal(std::chrono::milliseconds timeout);

}  // namespace unisched::runtime
