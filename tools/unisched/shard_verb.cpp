// unisched shard: hosts the ClusterActors of a share of the clusters, so ingest spreads over
// hosts. Publishes itself for agents and joins the hub, which assigns it clusters.
#include <spdlog/spdlog.h>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>

#include "actors/shard_actor.hpp"
#include "messages/caf_types.hpp"
#include "model/names.hpp"
#include "model/printable.hpp"
#include "runtime/hub_link.hpp"
#include "runtime/hub_metrics.hpp"
#include "runtime/metrics_source.hpp"
#include "runtime/network.hpp"
#include "runtime/status_server.hpp"
#include "tools/unisched/tls_flags.hpp"
#include "tools/unisched/verbs.hpp"

namespace unisched::cli {
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
runtime::StatusPages shard_pages(caf::actor_system& system, const actors::ShardActor& shard) {
  runtime::StatusPages pages;
  pages.metrics = [&system, shard] {
    const auto hosted = runtime::collect_shard_clusters(system, shard, runtime::kScrapePatience);
    return runtime::render_shard_metrics(hosted.value_or(v1::ClusterList{}), hosted ? 0 : 1);
  };
  return pages;
}

int run_shard(const ParsedArgs& args) {
  const auto hub_endpoint = required_hub(args);
  if (!hub_endpoint) {
    return 2;
  }
  std::string error;
  const auto listen = runtime::parse_endpoint(args.value("listen", "127.0.0.1:0"), error);
  if (!listen) {
    std::fprintf(stderr, "error: --listen: %s\n", error.c_str());
    return 2;
  }
  const auto tls_flag_files = tls_files(args);
  if (!tls_flag_files) {
    return 2;
  }
  const runtime::TlsFiles& tls = *tls_flag_files;
  if (!may_listen(args, tls, *listen, "listen")) {
    return 2;
  }
  actors::ClusterActorSettings cluster_settings;
  if (!read_update_limits(args, cluster_settings.update_limits, error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 2;
  }
  if (args.has("id")) {
    if (const std::string reason = model::check_dns1123_label(args.value("id")); !reason.empty()) {
      std::fprintf(stderr, "error: --id %s: %s\n", model::printable(args.value("id")).c_str(),
                   reason.c_str());
      return 2;
    }
  }
  std::optional<runtime::Endpoint> metrics_at;
  if (args.has("metrics") && !(metrics_at = parse_metrics_endpoint(args, error))) {
    std::fprintf(stderr, "error: --metrics: %s\n", error.c_str());
    return 2;
  }
  runtime::block_stop_signals();
  caf::actor_system_config config;
  auto system = runtime::make_networked_system(config, tls);
  if (!system) {
    return 1;
  }
  actors::ShardSettings shard_settings;
  shard_settings.cluster = cluster_settings;
  const actors::ShardActor shard = actors::spawn_shard_actor(*system, shard_settings);
  const auto port = runtime::publish(*system, shard, *listen, tls, error);
  if (!port) {
    std::fprintf(stderr, "error: cannot listen on %s: %s\n", listen->to_string().c_str(),
                 error.c_str());
    caf::anon_send_exit(shard, caf::exit_reason::user_shutdown);
    return 1;
  }
  v1::ShardRegistration registration;
  registration.set_shard_id(args.value("id", default_shard_id(*port)));
  registration.set_token(args.value("token"));
  registration.set_endpoint(args.value("advertise", listen->host + ":" + std::to_string(*port)));
  std::unique_ptr<runtime::StatusServer> metrics;
  if (metrics_at && !(metrics = runtime::open_metrics_port(metrics_at->host, metrics_at->port,
                                                           shard_pages(*system, shard)))) {
    caf::anon_send_exit(shard, caf::exit_reason::user_shutdown);
    return 1;
  }
  std::printf("listening on %s:%u\n", listen->host.c_str(), static_cast<unsigned>(*port));
  std::fflush(stdout);
  // Until stopped; after the hub comes back, join again (its clusters were restarted elsewhere
  // or stopped with the old hub, and new ones are assigned as agents register).
  const int status = runtime::stay_joined<v1::ShardRegistration>(*system, *hub_endpoint, tls,
                                                                 "shard " + registration.shard_id(),
                                                                 shard_atom_v, registration, shard);
  metrics.reset();  // before the shard it asks goes
  caf::anon_send_exit(shard, caf::exit_reason::user_shutdown);
  return status;
}

}  // namespace

Verb shard_verb() {
  return Verb{
      "shard",
      "Host the ClusterActors of a share of the clusters",
      "unisched shard --hub HOST:PORT [--listen HOST:PORT] [--id NAME]",
      "Publishes a shard at --listen and joins the hub. The hub places each newly registered\n"
      "cluster's ClusterActor on a shard by rendezvous hashing, and that cluster's agent then\n"
      "pushes its updates to the shard directly. When a shard is lost, the hub restarts its\n"
      "clusters on the remaining shards (or on itself) from full snapshots. The shard rejoins\n"
      "after the hub restarts, until SIGINT or SIGTERM.",
      [] {
        std::vector<Flag> flags = {
            {"hub", '\0', "HOST:PORT", false, "the hub published by unisched serve"},
            {"listen", '\0', "HOST:PORT", false, "where agents reach it (default 127.0.0.1:0)"},
            {"advertise", '\0', "HOST:PORT", false,
             "the address agents should use, when it differs from --listen"},
            {"id", '\0', "NAME", false,
             "the shard's name, a DNS-1123 label (default HOSTNAME-PORT)"},
            {"token", '\0', "TOKEN", false,
             "the shard's own token, when the hub checks shard tokens"},
            metrics_flag(false),
        };
        for (Flag& flag : update_limit_flags()) {
          flags.push_back(std::move(flag));
        }
        for (Flag& flag : tls_flags()) {
          flags.push_back(std::move(flag));
        }
        flags.push_back(insecure_plaintext_flag());
        return flags;
      }(),
      run_shard,
  };
}

}  // namespace unisched::cli
