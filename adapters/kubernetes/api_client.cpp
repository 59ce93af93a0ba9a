#include "adapters/kubernetes/api_client.hpp"

#include <curl/curl.h>

#include <mutex>

namespace unisched::adapters::kubernetes {
namespace {

void init_curl_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

/// Where a transfer's bytes go: the body, or complete lines to a callback.
struct Transfer {
  std::string buffer;
  size_t scanned = 0;  ///< the buffer before this holds no line end (a stream's partial line)
  const std::function<bool(std::string_view)>* on_line = nullptr;
  const std::atomic<bool>* stop = nullptr;
  bool stopped_by_reader = false;
  std::string over_limit;  ///< why the transfer was cut: a body or line past its bound
};

std::string mebibytes(size_t bytes) {
  return std::to_string(bytes >> 20) + " MiB";
}

/// Hands each complete line of a stream to the reader. Only the bytes that just came are
/// searched for line ends: a line that never ends costs its length once, not once per chunk.
size_t on_stream_data(Transfer& transfer, const char* data, size_t bytes) {
  transfer.buffer.append(data, bytes);
  size_t start = 0;
  for (size_t newline = transfer.buffer.find('\n', transfer.scanned); newline != std::string::npos;
       newline = transfer.buffer.find('\n', start)) {
    const std::string_view line(transfer.buffer.data() + start, newline - start);
    start = newline + 1;
    if (!line.empty() && !(*transfer.on_line)(line)) {
      transfer.stopped_by_reader = true;
      return 0;  // aborts the transfer
    }
  }
  transfer.buffer.erase(0, start);
  transfer.scanned = transfer.buffer.size();
  if (transfer.buffer.size() > kMaxStreamLineBytes) {
    transfer.over_limit = "a line of the stream runs past " + mebibytes(kMaxStreamLineBytes);
    return 0;
  }
  return bytes;
}

/// libcurl hands over bodies already decompressed: the bound holds for what is inflated.
size_t on_data(char* data, size_t size, size_t count, void* user) {
  auto& transfer = *static_cast<Transfer*>(user);
  const size_t bytes = size * count;
  if (transfer.on_line != nullptr) {
    return on_stream_data(transfer, data, bytes);
  }
  if (transfer.buffer.size() + bytes > kMaxResponseBytes) {
    transfer.over_limit =
        "the response runs past " + mebibytes(kMaxResponseBytes) + " (decompressed)";
    return 0;
  }
  transfer.buffer.append(data, bytes);
  return bytes;
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  const auto& transfer = *static_cast<Transfer*>(user);
  return transfer.stop != nullptr && transfer.stop->load() ? 1 : 0;
}

curl_blob blob(const std::string& text) {
  return curl_blob{const_cast<char*>(text.data()), text.size(), CURL_BLOB_COPY};
}

}  // namespace

std::string query_escape(std::string_view value) {
  init_curl_once();
  char* escaped = curl_easy_escape(nullptr, value.data(), static_cast<int>(value.size()));
  std::string out = escaped == nullptr ? std::string() : std::string(escaped);
  curl_free(escaped);
  return out;
}

struct ApiClient::Handle {
  CURL* curl = nullptr;
  curl_slist* headers = nullptr;
  ~Handle() {
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
  }
};

ApiClient::ApiClient(ClusterAccess access)
    : access_(std::move(access)), handle_(std::make_unique<Handle>()) {
  init_curl_once();
  handle_->curl = curl_easy_init();
  handle_->headers = curl_slist_append(handle_->headers, "Accept: application/json");
  handle_->headers = curl_slist_append(handle_->headers, "Content-Type: application/json");
  if (!access_.token.empty()) {
    handle_->headers =
        curl_slist_append(handle_->headers, ("Authorization: Bearer " + access_.token).c_str());
  }
}

ApiClient::~ApiClient() = default;

namespace {

/// Sets what every request of `access` shares: TLS, credentials, headers.
void prepare(CURL* curl, const ClusterAccess& access, curl_slist* headers) {
  curl_easy_reset(curl);
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "https");
  curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");  // gzip when the server offers it
  if (access.insecure_skip_tls_verify) {
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 0L);
  } else if (!access.ca_pem.empty()) {
    curl_blob ca = blob(access.ca_pem);
    curl_easy_setopt(curl, CURLOPT_CAINFO_BLOB, &ca);
  }
  if (!access.client_certificate_pem.empty()) {
    curl_blob certificate = blob(access.client_certificate_pem);
    curl_blob key = blob(access.client_key_pem);
    curl_easy_setopt(curl, CURLOPT_SSLCERT_BLOB, &certificate);
    curl_easy_setopt(curl, CURLOPT_SSLCERTTYPE, "PEM");
    curl_easy_setopt(curl, CURLOPT_SSLKEY_BLOB, &key);
    curl_easy_setopt(curl, CURLOPT_SSLKEYTYPE, "PEM");
  }
}

HttpResponse perform(CURL* curl, Transfer& transfer) {
  HttpResponse response;
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_data);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &transfer);
  curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &transfer);
  curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  const CURLcode code = curl_easy_perform(curl);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.status);
  if (!transfer.over_limit.empty()) {
    response.error = transfer.over_limit;
  } else if (code != CURLE_OK && !transfer.stopped_by_reader) {
    response.error = code == CURLE_ABORTED_BY_CALLBACK ? "stopped" : curl_easy_strerror(code);
  }
  response.body = std::move(transfer.buffer);
  return response;
}

}  // namespace

HttpResponse ApiClient::call(const char* method, const std::string& path, const std::string& body,
                             std::chrono::milliseconds timeout) {
  CURL* curl = handle_->curl;
  prepare(curl, access_, handle_->headers);
  const std::string url = access_.server + path;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method);
  if (!body.empty()) {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  }
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
  Transfer transfer;
  return perform(curl, transfer);
}

HttpResponse ApiClient::stream(const std::string& path,
                               const std::function<bool(std::string_view)>& on_line,
                               const std::atomic<bool>& stop, std::chrono::milliseconds timeout) {
  CURL* curl = handle_->curl;
  prepare(curl, access_, handle_->headers);
  const std::string url = access_.server + path;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
  Transfer transfer;
  transfer.on_line = &on_line;
  transfer.stop = &stop;
  return perform(curl, transfer);
}

}  // namespace unisched::adapters::kubernetes
