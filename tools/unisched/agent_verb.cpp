// unisched agent: reads the agent's flags into runtime::AgentServiceSettings, makes its
// cluster's adapter and runs the agent (runtime/agent_service).
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "runtime/agent_service.hpp"
#include "runtime/network.hpp"
#include "tools/unisched/agent_adapters.hpp"
#include "tools/unisched/tls_flags.hpp"
#include "tools/unisched/verbs.hpp"

namespace unisched::cli {
namespace {

using namespace unisched::atoms;

/// The agent's settings from its flags; nullopt after printing why they are unusable.
std::optional<runtime::AgentServiceSettings> read_agent_settings(const ParsedArgs& args) {
  const auto hub = required_hub(args);
  const auto tls = tls_files(args);
  if (!hub || !tls) {
    return std::nullopt;
  }
  runtime::AgentServiceSettings settings;
  settings.hub = *hub;
  settings.tls = *tls;
  settings.token = args.value("token");
  const std::string transport = args.value("transport", "caf");
  if (transport != "caf" && transport != "grpc") {
    std::fprintf(stderr, "error: --transport must be caf or grpc\n");
    return std::nullopt;
  }
  settings.transport = transport == "grpc" ? runtime::AgentServiceSettings::Transport::Grpc
                                           : runtime::AgentServiceSettings::Transport::Caf;
  if (args.has("push-interval") &&
      !parse_duration(args.value("push-interval"), settings.agent.push_interval)) {
    std::fprintf(stderr, "error: --push-interval must be a duration such as 500ms\n");
    return std::nullopt;
  }
  if (args.has("metrics")) {
    std::string error;
    settings.metrics = parse_metrics_endpoint(args, error);
    if (!settings.metrics) {
      std::fprintf(stderr, "error: --metrics: %s\n", error.c_str());
      return std::nullopt;
    }
  }
  return settings;
}

int run_agent(const ParsedArgs& args) {
  const auto settings = read_agent_settings(args);
  if (!settings) {
    return 2;
  }
  int exit_code = 0;
  const auto adapter = make_adapter(args, settings->agent.observe_interval, exit_code);
  return adapter ? runtime::run_agent_service(adapter, *settings) : exit_code;
}

}  // namespace

Verb agent_verb() {
  return Verb{
      "agent",
      "Run a metadata agent for one cluster and register it with a hub",
      "unisched agent --hub HOST:PORT (--profile FILE | --adapter kubernetes [--kubeconfig FILE] "
      "[--context NAME]) [--cluster ID] [--transport caf|grpc]",
      "Starts a simulated cluster from the profile, or reads a Kubernetes cluster through its API\n"
      "server (list and watch of nodes and pods), registers it with the hub and\n"
      "pushes incremental updates until SIGINT or SIGTERM. The hub's ClusterActor pulls full\n"
      "snapshots from it when it needs them, and the hub's supervisor probes it. When the hub\n"
      "goes away the agent reconnects with backoff (200 ms doubling to 5 s) and registers again.",
      [] {
        std::vector<Flag> flags = {
            {"hub", '\0', "HOST:PORT", false, "the hub published by unisched serve"},
            {"push-interval", '\0', "DURATION", false, "push every (default 1s)"},
            {"token", '\0', "TOKEN", false, "the cluster's token, when the hub checks tokens"},
            {"transport", '\0', "NAME", false,
             "caf (default; --hub is unisched serve --listen) or grpc (--hub is its --grpc)"},
            metrics_flag(false),
        };
        for (Flag& flag : adapter_flags()) {
          flags.push_back(std::move(flag));
        }
        for (Flag& flag : tls_flags()) {
          flags.push_back(std::move(flag));
        }
        return flags;
      }(),
      run_agent,
  };
}

}  // namespace unisched::cli
