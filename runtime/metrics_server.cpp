#include "runtime/metrics_server.hpp"

#include <httplib.h>
#include <spdlog/spdlog.h>

#include <chrono>

#include "runtime/prometheus_text.hpp"

namespace unisched::runtime {

std::unique_ptr<MetricsServer> MetricsServer::start(const std::string& host, uint16_t port,
                                                    std::function<std::string()> render,
                                                    std::string& error) {
  std::unique_ptr<MetricsServer> metrics(new MetricsServer());
  metrics->server_ = std::make_unique<httplib::Server>();
  httplib::Server& server = *metrics->server_;
  server.Get("/metrics", [render](const httplib::Request&, httplib::Response& response) {
    response.set_content(render(), kPrometheusContentType);
  });
  const int bound = port == 0                         ? server.bind_to_any_port(host)
                    : server.bind_to_port(host, port) ? static_cast<int>(port)
                                                      : -1;
  if (bound <= 0) {
    error = "cannot listen on " + host + ":" + std::to_string(port);
    return nullptr;
  }
  metrics->port_ = static_cast<uint16_t>(bound);
  metrics->thread_ = std::thread([&server] { server.listen_after_bind(); });
  // stop() only ends a server already running: wait for it, so that the destructor can.
  for (int waited_ms = 0; !server.is_running() && waited_ms < 5000; waited_ms += 5) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  spdlog::info("metrics on http://{}:{}/metrics", host, metrics->port_);
  return metrics;
}

MetricsServer::~MetricsServer() {
  server_->stop();
  if (thread_.joinable()) {
    thread_.join();
  }
}

}  // namespace unisched::runtime
