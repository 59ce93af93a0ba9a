// HTTPS to a Kubernetes API server with libcurl: one request at a time per client (a client per
// thread), TLS verified against the kubeconfig's CA unless it says insecure-skip-tls-verify,
// a client certificate or a bearer token as credential. Streams (watches) are read line by line.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "adapters/kubernetes/kubeconfig.hpp"

namespace unisched::adapters::kubernetes {

struct HttpResponse {
  long status = 0;    ///< the HTTP status; 0 when no response came
  std::string body;   ///< for streams: what followed the last complete line
  std::string error;  ///< why no response came (connection refused, TLS, timeout, stopped)

  bool ok() const { return error.empty() && status >= 200 && status < 300; }
};

/// The most a response body may hold once decompressed (a list page of 500 objects is a few
/// MiB; a gzip bomb would be gigabytes): past it the request fails, saying so.
inline constexpr size_t kMaxResponseBytes = 128 << 20;
/// The most one line of a stream (one watch event) may hold: etcd keeps objects of at most
/// 1.5 MiB, and a line that never ends must not grow for ever.
inline constexpr size_t kMaxStreamLineBytes = 16 << 20;

/// `value` made safe inside a URL's query (continue tokens are base64: '+', '/', '=').
std::string query_escape(std::string_view value);

class ApiClient {
 public:
  explicit ApiClient(ClusterAccess access);
  ~ApiClient();
  ApiClient(const ApiClient&) = delete;
  ApiClient& operator=(const ApiClient&) = delete;

  /// `method` (GET, POST, DELETE) of `path` ("/api/v1/nodes?limit=500"), with a JSON `body`
  /// when not empty; the whole answer, within `timeout`.
  HttpResponse call(const char* method, const std::string& path, const std::string& body,
                    std::chrono::milliseconds timeout);

  /// GETs `path` as a stream, handing each complete line to `on_line` until the server ends it,
  /// `on_line` returns false, `stop` becomes true (seen within a second) or `timeout` passes.
  HttpResponse stream(const std::string& path, const std::function<bool(std::string_view)>& on_line,
                      const std::atomic<bool>& stop, std::chrono::milliseconds timeout);

  const ClusterAccess& access() const { return access_; }

 private:
  struct Handle;
  ClusterAccess access_;
  std::unique_ptr<Handle> handle_;
};

}  // namespace unisched::adapters::kubernetes
