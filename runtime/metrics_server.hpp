// The HTTP server of `--metrics HOST:PORT`: GET /metrics answers with what `render` returns, in
// Prometheus' text format, from the server's own thread (cpp-httplib).
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

class MetricsServer {
 public:
  /// Listens on host:port (port 0: a free one); null with `error` set when it cannot.
  static std::unique_ptr<MetricsServer> start(const std::string& host, uint16_t port,
                                              std::function<std::string()> render,
                                              std::string& error);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  uint16_t port() const { return port_; }

 private:
  MetricsServer() = default;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  uint16_t port_ = 0;
};

}  // namespace unisched::runtime
