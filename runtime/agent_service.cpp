#include "runtime/agent_service.hpp"

#include <spdlog/spdlog.h>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/send.hpp>

#include <chrono>
#include <functional>
#include <mutex>

#include "adapters/cluster_adapter.hpp"
#include "messages/caf_types.hpp"
#include "model/names.hpp"
#include "runtime/grpc_agent.hpp"
#include "runtime/hub_link.hpp"
#include "runtime/hub_metrics.hpp"
#include "runtime/metrics_source.hpp"
#include "runtime/status_server.hpp"

namespace unisched::runtime {
namespace {

using namespace unisched::atoms;

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
std::unique_ptr<StatusServer> serve_agent_metrics(
    const Endpoint& at, std::function<std::optional<v1::AgentSummary>()> latest) {
  StatusPages pages;
  pages.metrics = [latest = std::move(latest)] {
    const auto summary = latest();
    return render_agent_metrics(summary.value_or(v1::AgentSummary{}), summary ? 0 : 1);
  };
  return open_metrics_port(at.host, at.port, std::move(pages));
}

int run_over_grpc(const std::shared_ptr<adapters::ClusterAdapter>& adapter, uint64_t epoch,
                  const AgentServiceSettings& service) {
  const Endpoint& hub = service.hub;
  const actors::AgentSettings& settings = service.agent;
  const std::optional<Endpoint>& metrics_at = service.metrics;
  const std::string& token = service.token;
  const v1::ClusterRegistration registration = registration_of(*adapter, token);
  GrpcAgentOptions options;
  options.centre = hub;
  options.tls = service.tls;
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
  std::unique_ptr<StatusServer> metrics;
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
  return run_grpc_agent(adapter, epoch, options, [&] {
    stopped = stopped || poll_stop_signal(std::chrono::milliseconds(0)) != 0;
    return stopped;
  });
}

int run_over_caf(const std::shared_ptr<adapters::ClusterAdapter>& adapter, uint64_t epoch,
                 const AgentServiceSettings& service) {
  const Endpoint& hub = service.hub;
  const TlsFiles& tls = service.tls;
  actors::AgentSettings settings = service.agent;
  const std::optional<Endpoint>& metrics_at = service.metrics;
  const std::string& token = service.token;
  caf::actor_system_config config;
  auto system = make_networked_system(config, tls);
  if (!system) {
    return 1;
  }
  settings.connect_directly = [&system = *system, tls](const std::string& endpoint) {
    connect_async(system, endpoint, tls);
  };
  const auto agent = actors::spawn_agent_actor(*system, adapter, epoch, settings);
  std::unique_ptr<StatusServer> metrics;
  if (metrics_at && !(metrics = serve_agent_metrics(*metrics_at, [&system = *system, agent] {
                        return collect_agent_summary(system, agent, kScrapePatience);
                      }))) {
    caf::anon_send_exit(agent, caf::exit_reason::user_shutdown);
    return 1;
  }
  const v1::ClusterRegistration registration = registration_of(*adapter, token);
  // Until stopped: when the hub goes away, reconnect and register again; the centre resumes
  // from the agent's version if it still has it, and pulls a full snapshot otherwise.
  const int status = stay_joined<actors::ClusterActor>(
      *system, hub, tls, "cluster " + registration.identity().cluster_id(), register_atom_v,
      registration, actors::AgentActor{agent});
  metrics.reset();  // before the agent it asks goes
  caf::anon_send_exit(agent, caf::exit_reason::user_shutdown);
  return status;
}

}  // namespace

int run_agent_service(const std::shared_ptr<adapters::ClusterAdapter>& adapter,
                      const AgentServiceSettings& settings) {
  block_stop_signals();
  const auto epoch =
      static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
  return settings.transport == AgentServiceSettings::Transport::Grpc
             ? run_over_grpc(adapter, epoch, settings)
             : run_over_caf(adapter, epoch, settings);
}

}  // namespace unisched::runtime
