// The HTTP server of `--metrics HOST:PORT` (cpp-httplib, on its own thread): GET /metrics in
// Prometheus' text format, GET /status.json with what the status page shows, and GET / the
// status page itself, which polls /status.json.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

namespace httplib {
class Server;
}

namespace unisched::runtime {

/// What the server answers with, asked for on each request.
struct StatusPages {
  std::function<std::string()> metrics;      ///< Prometheus text
  std::function<std::string()> status_json;  ///< the status page's data; empty: no page
};

class StatusServer {
 public:
  /// Listens on host:port (port 0: a free one); null with `error` set when it cannot.
  static std::unique_ptr<StatusServer> start(const std::string& host, uint16_t port,
                                             StatusPages pages, std::string& error);
  ~StatusServer();
  StatusServer(const StatusServer&) = delete;
  StatusServer& operator=(const StatusServer&) = delete;

  uint16_t port() const { return port_; }

 private:
  StatusServer() = default;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  uint16_t port_ = 0;
};

}  // namespace unisched::runtime
