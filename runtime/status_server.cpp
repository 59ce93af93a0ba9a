#include "runtime/status_server.hpp"

#include <spdlog/spdlog.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <cstdio>
#include <optional>
#include <thread>

#include "runtime/prometheus_text.hpp"
#include "runtime/status_page.hpp"

namespace unisched::runtime {
namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;
using boost::system::error_code;

using Request = http::request<http::empty_body>;
using Response = http::response<http::string_body>;

/// What every connection shares; touched only on the server's one thread.
struct Shared {
  StatusPages pages;
  StatusServerLimits limits;
  size_t open_connections = 0;
  uint64_t refused_connections = 0;
};

Response answer(unsigned version, http::status status, std::string body,
                const std::string& content_type = "text/plain; charset=utf-8") {
  Response response{status, version};
  response.set(http::field::content_type, content_type);
  response.body() = std::move(body);
  response.prepare_payload();
  return response;
}

/// The answer to a whole, well-formed request.
Response route(const Request& request, const StatusPages& pages) {
  const unsigned version = request.version();
  if (request.method() != http::verb::get) {
    Response refused = answer(version, http::status::method_not_allowed, "only GET\n");
    refused.set(http::field::allow, "GET");
    return refused;
  }
  const std::string target(request.target());
  const std::string path = target.substr(0, target.find('?'));
  if (path == "/metrics") {
    return answer(version, http::status::ok, pages.metrics(), kPrometheusContentType);
  }
  if (pages.status_json && path == "/status.json") {
    Response response = answer(version, http::status::ok, pages.status_json(), "application/json");
    response.set(http::field::cache_control, "no-store");
    return response;
  }
  if (pages.status_json && path == "/") {
    return answer(version, http::status::ok, std::string(kStatusPage), "text/html; charset=utf-8");
  }
  return answer(version, http::status::not_found, "not found\n");
}

/// The answer to a request that broke a limit or HTTP itself, by what the parser said.
Response refusal(const error_code& error, bool timed_out) {
  if (timed_out) {
    return answer(11, http::status::request_timeout, "the request did not arrive in time\n");
  }
  if (error == http::error::header_limit || error == http::error::buffer_overflow) {
    return answer(11, http::status::request_header_fields_too_large,
                  "request line and headers too large\n");
  }
  if (error == http::error::body_limit) {
    return answer(11, http::status::payload_too_large, "no request body is accepted\n");
  }
  return answer(11, http::status::bad_request, "malformed request\n");
}

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket socket, Shared& shared)
      : socket_(std::move(socket)),
        timer_(socket_.get_executor()),
        buffer_(shared.limits.max_header_bytes),
        shared_(shared) {
    ++shared_.open_connections;
  }
  ~Connection() { --shared_.open_connections; }

  void read_next() {
    parser_.emplace();
    parser_->header_limit(static_cast<uint32_t>(shared_.limits.max_header_bytes));
    parser_->body_limit(0);
    arm_deadline();
    http::async_read(
        socket_, buffer_, *parser_,
        [self = shared_from_this()](const error_code& error, size_t) { self->on_read(error); });
  }

 private:
  /// Closes the socket when the deadline passes first: the pending read or write then ends.
  void arm_deadline() {
    timed_out_ = false;
    timer_.expires_after(shared_.limits.request_deadline);
    timer_.async_wait([self = shared_from_this()](const error_code& error) {
      if (!error) {
        self->timed_out_ = true;
        self->socket_.cancel();
      }
    });
  }

  void on_read(const error_code& error) {
    timer_.cancel();
    if (error == http::error::end_of_stream || error == asio::error::eof ||
        (error == asio::error::operation_aborted && !timed_out_) ||
        error == asio::error::connection_reset) {
      return close();
    }
    if (error || timed_out_) {
      spdlog::debug("metrics: refused a request from {}: {}", peer(),
                    timed_out_ ? "it did not arrive in time" : error.message());
      return send(refusal(error, timed_out_), false);
    }
    const Request& request = parser_->get();
    if (static_cast<size_t>(std::distance(request.begin(), request.end())) >
        shared_.limits.max_header_fields) {
      return send(answer(request.version(), http::status::request_header_fields_too_large,
                         "too many header fields\n"),
                  false);
    }
    send(route(request, shared_.pages), request.keep_alive());
  }

  void send(Response response, bool keep_alive) {
    response.keep_alive(keep_alive);
    response_ = std::move(response);
    arm_deadline();  // a client that does not read its answer is cut off too
    http::async_write(socket_, response_,
                      [self = shared_from_this(), keep_alive](const error_code& error, size_t) {
                        self->timer_.cancel();
                        if (error || !keep_alive) {
                          return self->close();
                        }
                        self->read_next();
                      });
  }

  void close() {
    error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
  }

  std::string peer() const {
    error_code error;
    const tcp::endpoint endpoint = socket_.remote_endpoint(error);
    return error ? std::string("a closed connection")
                 : endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
  }

  tcp::socket socket_;
  asio::steady_timer timer_;
  boost::beast::flat_buffer buffer_;  // at most max_header_bytes: more is "too large"
  std::optional<http::request_parser<http::empty_body>> parser_;
  Response response_;
  bool timed_out_ = false;
  Shared& shared_;
};

}  // namespace

struct StatusServer::Impl {
  Shared shared;  // first: the connections the io_context still holds use it as they go
  asio::io_context io{1};
  tcp::acceptor acceptor{io};
  std::thread thread;

  void accept() {
    acceptor.async_accept([this](const error_code& error, tcp::socket socket) {
      if (error == asio::error::operation_aborted) {
        return;
      }
      if (!error && shared.open_connections >= shared.limits.max_connections) {
        if (shared.refused_connections++ % 1000 == 0) {
          spdlog::warn(
              "metrics: {} connections open, the most allowed; closing new ones ({} so far)",
              shared.open_connections, shared.refused_connections);
        }
      } else if (!error) {
        std::make_shared<Connection>(std::move(socket), shared)->read_next();
      }
      accept();
    });
  }
};

StatusServer::StatusServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

std::unique_ptr<StatusServer> StatusServer::start(const std::string& host, uint16_t port,
                                                  StatusPages pages, std::string& error,
                                                  StatusServerLimits limits) {
  auto impl = std::make_unique<Impl>();
  impl->shared.pages = std::move(pages);
  impl->shared.limits = limits;
  error_code failure;
  tcp::acceptor& acceptor = impl->acceptor;
  tcp::endpoint endpoint;
  const auto resolved = tcp::resolver(impl->io).resolve(host, std::to_string(port), failure);
  if (!failure && resolved.empty()) {
    failure = asio::error::host_not_found;
  } else if (!failure) {
    endpoint = resolved.begin()->endpoint();
  }
  if (!failure) {
    acceptor.open(endpoint.protocol(), failure);
  }
  if (!failure) {
    acceptor.set_option(asio::socket_base::reuse_address(true), failure);
  }
  if (!failure) {
    acceptor.bind(endpoint, failure);
  }
  if (!failure) {
    acceptor.listen(asio::socket_base::max_listen_connections, failure);
  }
  if (failure) {
    error = "cannot listen on " + host + ":" + std::to_string(port) + ": " + failure.message();
    return nullptr;
  }
  const uint16_t bound = acceptor.local_endpoint().port();
  impl->accept();
  Impl& running = *impl;
  impl->thread = std::thread([&running] { running.io.run(); });
  spdlog::info("metrics on http://{}:{}/metrics{}", host, bound,
               impl->shared.pages.status_json ? ", the status page at /" : "");
  return std::unique_ptr<StatusServer>(new StatusServer(std::move(impl)));
}

uint16_t StatusServer::port() const {
  return impl_->acceptor.local_endpoint().port();
}

std::unique_ptr<StatusServer> open_metrics_port(const std::string& host, uint16_t port,
                                                StatusPages pages) {
  std::string error;
  auto server = StatusServer::start(host, port, std::move(pages), error);
  if (!server) {
    std::fprintf(stderr, "error: --metrics: %s\n", error.c_str());
    return nullptr;
  }
  std::printf("metrics on %s:%u\n", host.c_str(), static_cast<unsigned>(server->port()));
  std::fflush(stdout);
  return server;
}

StatusServer::~StatusServer() {
  impl_->io.stop();
  if (impl_->thread.joinable()) {
    impl_->thread.join();
  }
}

}  // namespace unisched::runtime
