// The HTTP server of `--metrics HOST:PORT` (Boost.Beast over Asio, one thread): GET /metrics in
// Prometheus' text format, GET /status.json with what the status page shows, and GET / the
// status page itself, which polls /status.json.
//
// The port needs no credential, so every request is bounded before it costs anything: its
// request line and headers (431), its body (none is needed: 413), the time to send it (408),
// and the connections open at once. Reads are asynchronous: a client that sends a byte every
// few seconds holds a socket and a small buffer, never the thread that answers the others.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace unisched::runtime {

/// What the server answers with, asked for on each request.
struct StatusPages {
  std::function<std::string()> metrics;      ///< Prometheus text
  std::function<std::string()> status_json;  ///< the status page's data; empty: no page
};

struct StatusServerLimits {
  size_t max_header_bytes = 8 * 1024;  ///< request line and headers together
  size_t max_header_fields = 100;
  size_t max_connections = 128;  ///< more are closed as soon as they are accepted
  /// From a connection's first byte (or the end of its last answer) to a whole request; also
  /// the most an answer may take to be sent.
  std::chrono::milliseconds request_deadline{10'000};
};

class StatusServer {
 public:
  /// Listens on host:port (port 0: a free one); null with `error` set when it cannot.
  static std::unique_ptr<StatusServer> start(const std::string& host, uint16_t port,
                                             StatusPages pages, std::string& error,
                                             StatusServerLimits limits = {});
  ~StatusServer();
  StatusServer(const StatusServer&) = delete;
  StatusServer& operator=(const StatusServer&) = delete;

  uint16_t port() const;

  struct Impl;

 private:
  explicit StatusServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Serves `pages` on host:port for a role's --metrics and prints "metrics on HOST:PORT" to
/// standard output; null after printing why it cannot.
std::unique_ptr<StatusServer> open_metrics_port(const std::string& host, uint16_t port,
                                                StatusPages pages);

}  // namespace unisched::runtime
