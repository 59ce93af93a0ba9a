#include "tools/unisched/tls_flags.hpp"

namespace unisched::cli {

std::vector<Flag> tls_flags() {
  return {
      {"tls-cert", '\0', "FILE", false, "this side's certificate (PEM); enables mutual TLS"},
      {"tls-key", '\0', "FILE", false, "its private key (PEM)"},
      {"tls-ca", '\0', "FILE", false, "the CA the other side's certificate must come from"},
  };
}

runtime::TlsFiles tls_files(const ParsedArgs& args) {
  return {args.value("tls-cert"), args.value("tls-key"), args.value("tls-ca")};
}

}  // namespace unisched::cli
