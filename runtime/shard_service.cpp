#include "runtime/shard_service.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/send.hpp>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <memory>

#include "actors/shard_actor.hpp"
#include "messages/caf_types.hpp"
#include "model/names.hpp"
#include "runtime/hub_link.hpp"
#include "runtime/hub_metrics.hpp"
#include "runtime/metrics_source.hpp"
#include "runtime/status_server.hpp"

namespace unisched::runtime {
namespace {

using namespace unisched::atoms;

/// "HOST-PORT" from this host's name, lowercased, when that is a DNS-1123 label; else
/// "shard-PORT".
std::string default_shard_id(uint16_t port) {
  char host_name[256] = {};
  gethostname(host_name, sizeof(host_name) - 1);
  std::string host(host_name, strnlen(host_name, sizeof(host_name)));
  host = host.substr(0, host.find('.'));
  std::transform(host.begin(), host.end(), host.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const std::string id = host + "-" + std::to_string(port);
  return model::check_dns1123_label(id).empty() ? id : "shard-" + std::to_string(port);
}

/// What the shard's metrics port answers: the clusters whose ClusterActors it hosts.
StatusPages shard_pages(caf::actor_system& system, const actors::ShardActor& shard) {
  StatusPages pages;
  pages.metrics = [&system, shard] {
    const auto hosted = collect_shard_clusters(system, shard, kScrapePatience);
    return render_shard_metrics(hosted.value_or(v1::ClusterList{}), hosted ? 0 : 1);
  };
  return pages;
}

}  // namespace

int run_shard_service(const ShardServiceSettings& settings) {
  std::string error;
  block_stop_signals();
  caf::actor_system_config config;
  auto system = make_networked_system(config, settings.tls);
  if (!system) {
    return 1;
  }
  actors::ShardSettings shard_settings;
  shard_settings.cluster = settings.cluster;
  const actors::ShardActor shard = actors::spawn_shard_actor(*system, shard_settings);
  const auto port = publish(*system, shard, settings.listen, settings.tls, error);
  if (!port) {
    std::fprintf(stderr, "error: cannot listen on %s: %s\n", settings.listen.to_string().c_str(),
                 error.c_str());
    caf::anon_send_exit(shard, caf::exit_reason::user_shutdown);
    return 1;
  }
  v1::ShardRegistration registration;
  registration.set_shard_id(settings.id.empty() ? default_shard_id(*port) : settings.id);
  registration.set_token(settings.token);
  registration.set_endpoint(settings.advertise.empty()
                                ? settings.listen.host + ":" + std::to_string(*port)
                                : settings.advertise);
  std::unique_ptr<StatusServer> metrics;
  if (settings.metrics &&
      !(metrics = open_metrics_port(settings.metrics->host, settings.metrics->port,
                                    shard_pages(*system, shard)))) {
    caf::anon_send_exit(shard, caf::exit_reason::user_shutdown);
    return 1;
  }
  std::printf("listening on %s:%u\n", settings.listen.host.c_str(), static_cast<unsigned>(*port));
  std::fflush(stdout);
  // Until stopped; after the hub comes back, join again (its clusters were restarted elsewhere
  // or stopped with the old hub, and new ones are assigned as agents register).
  const int status = stay_joined<v1::ShardRegistration>(*system, settings.hub, settings.tls,
                                                        "shard " + registration.shard_id(),
                                                        shard_atom_v, registration, shard);
  metrics.reset();  // before the shard it asks goes
  caf::anon_send_exit(shard, caf::exit_reason::user_shutdown);
  return status;
}

}  // namespace unisched::runtime
