#include "tools/unisched/hub_client.hpp"

#include <caf/io/middleman.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "model/printable.hpp"
#include "runtime/json_report.hpp"
#include "runtime/manifest_loader.hpp"
#include "runtime/network.hpp"
#include "tools/unisched/tls_flags.hpp"

namespace unisched::cli {

std::vector<Flag> hub_client_flags() {
  std::vector<Flag> flags = {{"hub", '\0', "HOST:PORT", false, "the hub (default 127.0.0.1:4242)"}};
  for (Flag& flag : tls_flags()) {
    flags.push_back(std::move(flag));
  }
  return flags;
}

std::unique_ptr<HubConnection> connect_to_hub(const ParsedArgs& args) {
  std::string error;
  const auto endpoint = runtime::parse_endpoint(args.value("hub", "127.0.0.1:4242"), error);
  if (!endpoint) {
    std::fprintf(stderr, "error: --hub: %s\n", error.c_str());
    return nullptr;
  }
  const auto tls_flag_files = tls_files(args);
  if (!tls_flag_files) {
    return nullptr;
  }
  const runtime::TlsFiles& tls = *tls_flag_files;
  auto connection = std::make_unique<HubConnection>();
  connection->system = runtime::make_networked_system(connection->config, tls);
  if (!connection->system) {
    return nullptr;
  }
  const auto hub = runtime::connect(*connection->system, *endpoint, tls, error);
  if (!hub) {
    std::fprintf(stderr, "error: cannot reach the hub at %s: %s\n", endpoint->to_string().c_str(),
                 error.c_str());
    return nullptr;
  }
  connection->hub = *hub;
  return connection;
}

std::string to_json(const google::protobuf::Message& message) {
  return runtime::dump_json(runtime::proto_json(message));
}

std::optional<std::string> read_input(const std::string& path) {
  std::ifstream file;
  if (path != "-") {
    file.open(path, std::ios::binary);
    if (!file) {
      std::fprintf(stderr, "error: cannot read %s\n", model::printable(path).c_str());
      return std::nullopt;
    }
  }
  std::string text;
  if (!runtime::read_manifest_stream(path == "-" ? std::cin : file, text)) {
    const std::string name = path == "-" ? "<stdin>" : path;
    std::fprintf(stderr, "error: %s\n", runtime::manifest_too_large(name, 0).c_str());
    return std::nullopt;
  }
  return text;
}

}  // namespace unisched::cli
