#include "tools/unisched/tls_flags.hpp"

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

}  // namespace unisched::cli
