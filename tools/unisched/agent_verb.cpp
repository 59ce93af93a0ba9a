// unisched agent: a metadata agent beside its cluster, registered with a hub on another host.
#include <spdlog/spdlog.h>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/io/middleman.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>

#include <chrono>
#include <cstdio>

#include "actors/agent_actor.hpp"
#include "adapters/simulated_cluster.hpp"
#include "messages/caf_types.hpp"
#include "model/names.hpp"
#include "model/printable.hpp"
#include "runtime/grpc_agent.hpp"
#include "runtime/hub_link.hpp"
#include "runtime/manifest_loader.hpp"
#include "runtime/network.hpp"
#include "tools/unisched/tls_flags.hpp"
#include "tools/unisched/verbs.hpp"

namespace unisched::cli {
namespace {

using namespace unisched::atoms;

/// The one ClusterResourceProfile in `path`, or nullopt after printing why not.
std::optional<model::ClusterResourceProfile> load_profile(const std::string& path) {
  const auto set = runtime::load_manifests({path});
  for (const auto& problem : set.problems) {
    std::fprintf(stderr, "%s\n", problem.to_string().c_str());
  }
  std::vector<model::ClusterResourceProfile> profiles;
  for (const auto& loaded : set.manifests) {
    if (const auto* profile = std::get_if<model::ClusterResourceProfile>(&loaded.manifest)) {
      profiles.push_back(*profile);
    }
  }
  if (!set.problems.empty() || profiles.size() != 1) {
    std::fprintf(stderr, "error: --profile must hold exactly one valid ClusterResourceProfile\n");
    return std::nullopt;
  }
  return profiles.front();
}

int run_agent(const ParsedArgs& args) {
  std::string error;
  const auto hub_endpoint = runtime::parse_endpoint(args.value("hub"), error);
  if (!args.has("hub") || !hub_endpoint) {
    std::fprintf(stderr, "error: --hub HOST:PORT is required%s%s\n", error.empty() ? "" : ": ",
                 error.c_str());
    return 2;
  }
  if (!args.has("profile")) {
    std::fprintf(stderr, "error: --profile FILE is required\n");
    return 2;
  }
  if (const std::string adapter = args.value("adapter", "sim"); adapter != "sim") {
    std::fprintf(stderr, "error: --adapter: unknown adapter \"%s\" (available: sim)\n",
                 adapter.c_str());
    return 2;
  }
  auto profile = load_profile(args.value("profile"));
  if (!profile) {
    return 1;
  }
  if (args.has("cluster")) {
    const std::string id = args.value("cluster");
    if (const std::string reason = model::check_cluster_id(id); !reason.empty()) {
      std::fprintf(stderr, "error: --cluster %s: %s\n", model::quoted_brief(id).c_str(),
                   reason.c_str());
      return 2;
    }
    profile->spec.cluster_id = id;
  }
  actors::AgentSettings settings;
  if (args.has("push-interval") &&
      !parse_duration(args.value("push-interval"), settings.push_interval)) {
    std::fprintf(stderr, "error: --push-interval must be a duration such as 500ms\n");
    return 2;
  }
  adapters::SimulationOptions simulation;
  simulation.seed = static_cast<uint64_t>(std::hash<std::string>{}(profile->spec.cluster_id));
  simulation.step = settings.observe_interval;

  const auto tls_flag_files = tls_files(args);
  if (!tls_flag_files) {
    return 2;
  }
  const runtime::TlsFiles& tls = *tls_flag_files;
  const std::string transport = args.value("transport", "caf");
  if (transport != "caf" && transport != "grpc") {
    std::fprintf(stderr, "error: --transport must be caf or grpc\n");
    return 2;
  }
  runtime::block_stop_signals();
  const auto epoch =
      static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
  if (transport == "grpc") {
    runtime::GrpcAgentOptions options;
    options.centre = *hub_endpoint;
    options.tls = tls;
    options.token = args.value("token");
    options.region = profile->spec.topology.region;
    options.zone = profile->spec.topology.zone;
    options.machine_type =
        std::string(model::spelling(model::kMachineTypes, profile->spec.machine_type));
    options.observe_interval = settings.observe_interval;
    options.push_interval = settings.push_interval;
    bool stopped = false;
    spdlog::info("agent for cluster {} streaming to {} over gRPC", profile->spec.cluster_id,
                 hub_endpoint->to_string());
    return runtime::run_grpc_agent(
        std::make_shared<adapters::SimulatedCluster>(*profile, simulation), epoch, options, [&] {
          stopped = stopped || runtime::poll_stop_signal(std::chrono::milliseconds(0)) != 0;
          return stopped;
        });
  }
  caf::actor_system_config config;
  auto system = runtime::make_networked_system(config, tls);
  if (!system) {
    return 1;
  }
  settings.connect_directly = [&system = *system, tls](const std::string& endpoint) {
    runtime::connect_async(system, endpoint, tls);
  };
  const caf::actor agent = actors::spawn_agent_actor(
      *system, std::make_shared<adapters::SimulatedCluster>(*profile, simulation), epoch, settings);
  v1::ClusterRegistration registration;
  registration.mutable_identity()->set_cluster_id(profile->spec.cluster_id);
  registration.mutable_identity()->set_token(args.value("token"));
  registration.set_region(profile->spec.topology.region);
  registration.set_zone(profile->spec.topology.zone);
  registration.set_machine_type(
      std::string(model::spelling(model::kMachineTypes, profile->spec.machine_type)));
  // Until stopped: when the hub goes away, reconnect and register again; the centre resumes
  // from the agent's version if it still has it, and pulls a full snapshot otherwise.
  const int status =
      runtime::stay_joined(*system, *hub_endpoint, tls, "cluster " + profile->spec.cluster_id,
                           register_atom_v, registration, agent);
  caf::anon_send_exit(agent, caf::exit_reason::user_shutdown);
  return status;
}

}  // namespace

Verb agent_verb() {
  return Verb{
      "agent",
      "Run a metadata agent for one cluster and register it with a hub",
      "unisched agent --hub HOST:PORT --profile FILE [--cluster ID] [--adapter sim] [--transport "
      "caf|grpc]",
      "Starts a simulated cluster from the profile, observes it, registers it with the hub and\n"
      "pushes incremental updates until SIGINT or SIGTERM. The hub's ClusterActor pulls full\n"
      "snapshots from it when it needs them, and the hub's supervisor probes it. When the hub\n"
      "goes away the agent reconnects with backoff (200 ms doubling to 5 s) and registers again.",
      [] {
        std::vector<Flag> flags = {
            {"hub", '\0', "HOST:PORT", false, "the hub published by unisched serve"},
            {"profile", 'f', "FILE", false, "the cluster's ClusterResourceProfile"},
            {"cluster", '\0', "ID", false, "clusterID to register under (default: the profile's)"},
            {"adapter", '\0', "NAME", false,
             "how the agent sees its cluster: sim (default; a simulated cluster from the profile)"},
            {"push-interval", '\0', "DURATION", false, "push every (default 1s)"},
            {"token", '\0', "TOKEN", false, "the cluster's token, when the hub checks tokens"},
            {"transport", '\0', "NAME", false,
             "caf (default; --hub is unisched serve --listen) or grpc (--hub is its --grpc)"},
        };
        for (Flag& flag : tls_flags()) {
          flags.push_back(std::move(flag));
        }
        return flags;
      }(),
      run_agent,
  };
}

}  // namespace unisched::cli
