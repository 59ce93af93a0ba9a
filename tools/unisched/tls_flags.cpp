#include "tools/unisched/tls_flags.hpp"

#include <spdlog/spdlog.h>

#include <cstdio>

namespace unisched::cli {

std::vector<Flag> tls_flags() {
  return {
      {"tls-cert", '\0', "FILE", false, "this side's certificate (PEM); enables mutual TLS"},
      {"tls-key", '\0', "FILE", false, "its private key (PEM)"},
      {"tls-ca", '\0', "FILE", false, "the CA the other side's certificate must come from"},
  };
}

std::optional<runtime::TlsFiles> tls_files(const ParsedArgs& args) {
  runtime::TlsFiles tls{args.value("tls-cert"), args.value("tls-key"), args.value("tls-ca")};
  if (const std::string problem = tls.problem(); !problem.empty()) {
    std::fprintf(stderr, "error: %s\n", problem.c_str());
    return std::nullopt;
  }
  return tls;
}

std::optional<runtime::Endpoint> required_hub(const ParsedArgs& args) {
  std::string error;
  const auto hub = runtime::parse_endpoint(args.value("hub"), error);
  if (!args.has("hub") || !hub) {
    std::fprintf(stderr, "error: --hub HOST:PORT is required%s%s\n", error.empty() ? "" : ": ",
                 error.c_str());
    return std::nullopt;
  }
  return hub;
}

Flag insecure_plaintext_flag() {
  return {"insecure-plaintext-beyond-loopback", '\0', "", false,
          "listen beyond loopback without TLS: anyone who reaches the port can talk to it"};
}

bool may_listen(const ParsedArgs& args, const runtime::TlsFiles& tls,
                const runtime::Endpoint& endpoint, const std::string& flag) {
  if (tls.enabled() || runtime::is_loopback(endpoint.host)) {
    return true;
  }
  if (!args.has("insecure-plaintext-beyond-loopback")) {
    std::fprintf(stderr,
                 "error: --%s %s is beyond loopback and TLS is off: anyone who can reach it "
                 "could register clusters and send messages as any peer. Give --tls-cert, "
                 "--tls-key and --tls-ca, or --insecure-plaintext-beyond-loopback to accept "
                 "that risk (see SECURITY.md)\n",
                 flag.c_str(), endpoint.to_string().c_str());
    return false;
  }
  spdlog::warn(
      "INSECURE: --{} {} accepts plain TCP beyond loopback (--insecure-plaintext-beyond-loopback): "
      "anyone who can reach it can register clusters and send messages as any peer",
      flag, endpoint.to_string());
  return true;
}

Flag metrics_flag(bool status_page) {
  return {"metrics", '\0', "HOST:PORT", false,
          std::string("serve Prometheus metrics at http://HOST:PORT/metrics") +
              (status_page ? " and a live status page at /" : "") +
              " (port 0: a free one; off by default; plain HTTP, read-only, no credential: keep "
              "it on loopback or a private network)"};
}

std::optional<runtime::Endpoint> parse_metrics_endpoint(const ParsedArgs& args,
                                                        std::string& error) {
  auto endpoint = runtime::parse_endpoint(args.value("metrics"), error);
  if (endpoint && !runtime::is_loopback(endpoint->host)) {
    spdlog::warn(
        "--metrics {} is beyond loopback: whoever reaches it reads the clusters' names "
        "and figures (plain HTTP)",
        endpoint->to_string());
  }
  return endpoint;
}

}  // namespace unisched::cli
