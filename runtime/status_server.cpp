#include "runtime/status_server.hpp"

#include <httplib.h>
#include <spdlog/spdlog.h>

#include <chrono>

#include "runtime/prometheus_text.hpp"
#include "runtime/status_page.hpp"

namespace unisched::runtime {

std::unique_ptr<StatusServer> StatusServer::start(const std::string& host, uint16_t port,
                                                  StatusPages pages, std::string& error) {
  std::unique_ptr<StatusServer> status(new StatusServer());
  status->server_ = std::make_unique<httplib::Server>();
  httplib::Server& server = *status->server_;
  server.Get("/metrics",
             [render = pages.metrics](const httplib::Request&, httplib::Response& response) {
               response.set_content(render(), kPrometheusContentType);
             });
  if (pages.status_json) {  // the centre's; shards and agents serve metrics only
    server.Get("/status.json",
               [render = pages.status_json](const httplib::Request&, httplib::Response& response) {
                 response.set_header("Cache-Control", "no-store");
                 response.set_content(render(), "application/json");
               });
    server.Get("/", [](const httplib::Request&, httplib::Response& response) {
      response.set_content(kStatusPage, "text/html; charset=utf-8");
    });
  }
  const int bound = port == 0                         ? server.bind_to_any_port(host)
                    : server.bind_to_port(host, port) ? static_cast<int>(port)
                                                      : -1;
  if (bound <= 0) {
    error = "cannot listen on " + host + ":" + std::to_string(port);
    return nullptr;
  }
  status->port_ = static_cast<uint16_t>(bound);
  status->thread_ = std::thread([&server] { server.listen_after_bind(); });
  // stop() only ends a server already running: wait for it, so that the destructor can.
  for (int waited_ms = 0; !server.is_running() && waited_ms < 5000; waited_ms += 5) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  spdlog::info("status page on http://{}:{}/, metrics at /metrics", host, status->port_);
  return status;
}

StatusServer::~StatusServer() {
  server_->stop();
  if (thread_.joinable()) {
    thread_.join();
  }
}

}  // namespace unisched::runtime
