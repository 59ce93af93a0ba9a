// unisched agent: a metadata agent beside its cluster, registered with a hub on another host.
#include <spdlog/spdlog.h>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/io/middleman.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>

#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

#include "actors/agent_actor.hpp"
#include "messages/caf_types.hpp"
#include "model/names.hpp"
#include "model/printable.hpp"
#include "runtime/grpc_agent.hpp"
#include "runtime/hub_link.hpp"
#include "runtime/hub_metrics.hpp"
#include "runtime/metrics_source.hpp"
#include "runtime/network.hpp"
#include "runtime/status_server.hpp"
#include "tools/unisched/agent_adapters.hpp"
#include "tools/unisched/tls_flags.hpp"
#include "tools/unisched/verbs.hpp"

namespace unisched::cli {
namespace {

using namespace unisched::atoms;

/// The agent's settings from its flags; nullopt after printing why they are unusable.
std::optional<actors::AgentSettings> agent_settings(const ParsedArgs& args) {
  actors::AgentSettings settings;
  if (args.has("push-interval") &&
      !parse_duration(args.value("push-interval"), settings.push_interval)) {
    std::fprintf(stderr, "error: --push-interval must be a duration such as 500ms\n");
    return std::nullopt;
  }
  return settings;
}

/// What the hub learns of the cluster when the agent registers.
v1::ClusterRegistration registration_of(const adapters::ClusterAdapter& adapter,
                                        const std::string& token) {
  const model::ClusterProfileSpec& spec = adapter.profile().spec;
  v1::ClusterRegistration registration;
  registration.mutable_identity()->set_cluster_id(spec.cluster_id);
  registration.mutable_identity()->set_token(token);
  registration.set_region(spec.topology.region);
  registration.set_zone(spec.topology.zone);
  registration.set_machine_type(
      std::string(model::spelling(model::kMachineTypes, spec.machine_type)));
  registration.set_view_only(!adapter.takes_placements());
  return registration;
}

/// Serves at `at` the metrics of the agent whose summary `latest` gives (nullopt: it did not
/// answer); null after printing why it cannot.
std::unique_ptr<runtime::StatusServer> serve_agent_metrics(
    const runtime::Endpoint& at, std::function<std::optional<v1::AgentSummary>()> latest) {
  runtime::StatusPages pages;
  pages.metrics = [latest = std::move(latest)] {
    const auto summary = latest();
    return runtime::render_agent_metrics(summary.value_or(v1::AgentSummary{}), summary ? 0 : 1);
  };
  return open_metrics_port(at, std::move(pages));
}

int run_over_grpc(const std::shared_ptr<adapters::ClusterAdapter>& adapter, uint64_t epoch,
                  const runtime::Endpoint& hub, const runtime::TlsFiles& tls,
                  const actors::AgentSettings& settings, const std::string& token,
                  const std::optional<runtime::Endpoint>& metrics_at) {
  const v1::ClusterRegistration registration = registration_of(*adapter, token);
  runtime::GrpcAgentOptions options;
  options.centre = hub;
  options.tls = tls;
  options.token = token;
  options.region = registration.region();
  options.zone = registration.zone();
  options.machine_type = registration.machine_type();
  options.view_only = registration.view_only();
  options.observe_interval = settings.observe_interval;
  options.push_interval = settings.push_interval;
  // The agent's thread publishes its summary; the metrics server's thread reads it.
  struct Latest {
    std::mutex mutex;
    std::optional<v1::AgentSummary> summary;
  };
  const auto latest = std::make_shared<Latest>();
  std::unique_ptr<runtime::StatusServer> metrics;
  if (metrics_at) {
    options.publish_summary = [latest](const v1::AgentSummary& summary) {
      const std::lock_guard<std::mutex> lock(latest->mutex);
      latest->summary = summary;
    };
    metrics = serve_agent_metrics(*metrics_at, [latest] {
      const std::lock_guard<std::mutex> lock(latest->mutex);
      return latest->summary;
    });
    if (!metrics) {
      return 1;
    }
  }
  bool stopped = false;
  spdlog::info("agent for cluster {} streaming to {} over gRPC",
               registration.identity().cluster_id(), hub.to_string());
  return runtime::run_grpc_agent(adapter, epoch, options, [&] {
    stopped = stopped || runtime::poll_stop_signal(std::chrono::milliseconds(0)) != 0;
    return stopped;
  });
}

int run_over_caf(const std::shared_ptr<adapters::ClusterAdapter>& adapter, uint64_t epoch,
                 const runtime::Endpoint& hub, const runtime::TlsFiles& tls,
                 actors::AgentSettings settings, const std::string& token,
                 const std::optional<runtime::Endpoint>& metrics_at) {
  caf::actor_system_config config;
  auto system = runtime::make_networked_system(config, tls);
  if (!system) {
    return 1;
  }
  settings.connect_directly = [&system = *system, tls](const std::string& endpoint) {
    runtime::connect_async(system, endpoint, tls);
  };
  const auto agent = actors::spawn_agent_actor(*system, adapter, epoch, settings);
  std::unique_ptr<runtime::StatusServer> metrics;
  if (metrics_at && !(metrics = serve_agent_metrics(*metrics_at, [&system = *system, agent] {
                        return runtime::collect_agent_summary(system, agent,
                                                              runtime::kScrapePatience);
                      }))) {
    caf::anon_send_exit(agent, caf::exit_reason::user_shutdown);
    return 1;
  }
  const v1::ClusterRegistration registration = registration_of(*adapter, token);
  // Until stopped: when the hub goes away, reconnect and register again; the centre resumes
  // from the agent's version if it still has it, and pulls a full snapshot otherwise.
  const int status = runtime::stay_joined<actors::ClusterActor>(
      *system, hub, tls, "cluster " + registration.identity().cluster_id(), register_atom_v,
      registration, actors::AgentActor{agent});
  metrics.reset();  // before the agent it asks goes
  caf::anon_send_exit(agent, caf::exit_reason::user_shutdown);
  return status;
}

int run_agent(const ParsedArgs& args) {
  const auto hub_endpoint = required_hub(args);
  if (!hub_endpoint) {
    return 2;
  }
  const std::string transport = args.value("transport", "caf");
  const auto tls = tls_files(args);
  const auto settings = agent_settings(args);
  if (!tls || !settings || (transport != "caf" && transport != "grpc")) {
    if (transport != "caf" && transport != "grpc") {
      std::fprintf(stderr, "error: --transport must be caf or grpc\n");
    }
    return 2;
  }
  std::optional<runtime::Endpoint> metrics_at;
  if (args.has("metrics")) {
    std::string error;
    metrics_at = parse_metrics_endpoint(args, error);
    if (!metrics_at) {
      std::fprintf(stderr, "error: --metrics: %s\n", error.c_str());
      return 2;
    }
  }
  int exit_code = 0;
  const auto adapter = make_adapter(args, settings->observe_interval, exit_code);
  if (!adapter) {
    return exit_code;
  }
  runtime::block_stop_signals();
  const auto epoch =
      static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
  return transport == "grpc" ? run_over_grpc(adapter, epoch, *hub_endpoint, *tls, *settings,
                                             args.value("token"), metrics_at)
                             : run_over_caf(adapter, epoch, *hub_endpoint, *tls, *settings,
                                            args.value("token"), metrics_at);
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
