// unisched serve: the centre (supervisor and ClusterActors), publishing its hub for agents and
// clients over CAF remote messaging.
#include <spdlog/spdlog.h>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/io/middleman.hpp>
#include <caf/send.hpp>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "actors/supervisor.hpp"
#include "runtime/cluster_tokens.hpp"
#include "runtime/hub.hpp"
#include "runtime/network.hpp"
#include "tools/unisched/tls_flags.hpp"
#include "tools/unisched/verbs.hpp"

namespace unisched::cli {
namespace {

int run_serve(const ParsedArgs& args) {
  std::string error;
  const auto endpoint = runtime::parse_endpoint(args.value("listen", "127.0.0.1:4242"), error);
  if (!endpoint) {
    std::fprintf(stderr, "error: --listen: %s\n", error.c_str());
    return 2;
  }
  const runtime::TlsFiles tls = tls_files(args);
  if (const std::string problem = tls.problem(); !problem.empty()) {
    std::fprintf(stderr, "error: %s\n", problem.c_str());
    return 2;
  }
  if (!tls.enabled() && !runtime::is_loopback(endpoint->host)) {
    spdlog::warn("listening on {} without TLS: anyone who can reach it can register clusters",
                 endpoint->to_string());
  }
  runtime::ClusterTokens tokens;
  if (args.has("cluster-tokens")) {
    const std::string file = args.value("cluster-tokens");
    std::ifstream stream(file);
    if (!stream) {
      std::fprintf(stderr, "error: cannot read %s\n", file.c_str());
      return 1;
    }
    std::ostringstream text;
    text << stream.rdbuf();
    tokens = runtime::parse_cluster_tokens(text.str(), file);
    for (const std::string& problem : tokens.problems) {
      std::fprintf(stderr, "%s\n", problem.c_str());
    }
    if (!tokens.problems.empty()) {
      return 1;
    }
  }
  runtime::block_stop_signals();
  caf::actor_system_config config;
  auto system = runtime::make_networked_system(config, tls);
  const caf::actor supervisor = actors::spawn_supervisor(*system, actors::SupervisorSettings{});
  const caf::actor hub = runtime::spawn_hub(*system, supervisor, tokens.by_cluster);
  const auto port = runtime::publish(*system, hub, *endpoint, tls, error);
  if (!port) {
    std::fprintf(stderr, "error: cannot listen on %s: %s\n", endpoint->to_string().c_str(),
                 error.c_str());
    caf::anon_send_exit(hub, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(supervisor, caf::exit_reason::user_shutdown);
    return 1;
  }
  std::printf("listening on %s:%u\n", endpoint->host.c_str(), static_cast<unsigned>(*port));
  std::fflush(stdout);
  const int signal = runtime::wait_for_stop_signal();
  spdlog::info("stopping on signal {}", signal);
  caf::anon_send_exit(hub, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(supervisor, caf::exit_reason::user_shutdown);
  return 0;
}

}  // namespace

Verb serve_verb() {
  return Verb{
      "serve",
      "Run the centre and publish it for agents and clients",
      "unisched serve [--listen HOST:PORT]",
      "Runs the supervisor and one ClusterActor per registered cluster, and publishes the hub\n"
      "at HOST:PORT (CAF remote messaging over TCP) until SIGINT or SIGTERM. Port 0 picks a\n"
      "free port; the port in use is printed as \"listening on HOST:PORT\".\n"
      "\n"
      "Example (three terminals):\n"
      "  unisched serve --listen 127.0.0.1:4242\n"
      "  unisched agent --hub 127.0.0.1:4242 --profile config/profiles/t4-vm-useast.yaml\n"
      "  unisched get clusters --hub 127.0.0.1:4242",
      [] {
        std::vector<Flag> flags = {
            {"listen", '\0', "HOST:PORT", false,
             "where to publish the hub (default 127.0.0.1:4242)"},
            {"cluster-tokens", '\0', "FILE", false,
             "\"clusterID token\" lines: agents must present their cluster's token"}};
        for (Flag& flag : tls_flags()) {
          flags.push_back(std::move(flag));
        }
        return flags;
      }(),
      run_serve,
  };
}

}  // namespace unisched::cli
