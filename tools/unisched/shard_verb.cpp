// unisched shard: reads the shard's flags into runtime::ShardServiceSettings and runs the shard
// (runtime/shard_service), which hosts the ClusterActors of a share of the clusters so ingest
// spreads over hosts.
#include <cstdio>
#include <optional>
#include <string>

#include "model/names.hpp"
#include "model/printable.hpp"
#include "runtime/network.hpp"
#include "runtime/shard_service.hpp"
#include "tools/unisched/tls_flags.hpp"
#include "tools/unisched/verbs.hpp"

namespace unisched::cli {
namespace {

/// The shard's settings from its flags; nullopt after printing why they are unusable.
std::optional<runtime::ShardServiceSettings> read_shard_settings(const ParsedArgs& args) {
  const auto hub = required_hub(args);
  const auto tls = tls_files(args);
  if (!hub || !tls) {
    return std::nullopt;
  }
  runtime::ShardServiceSettings settings;
  settings.hub = *hub;
  settings.tls = *tls;
  std::string error;
  const auto listen = runtime::parse_endpoint(args.value("listen", "127.0.0.1:0"), error);
  if (!listen) {
    std::fprintf(stderr, "error: --listen: %s\n", error.c_str());
    return std::nullopt;
  }
  settings.listen = *listen;
  if (!may_listen(args, settings.tls, settings.listen, "listen")) {
    return std::nullopt;
  }
  if (!read_update_limits(args, settings.cluster.update_limits, error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return std::nullopt;
  }
  settings.id = args.value("id");
  if (const std::string reason = model::check_dns1123_label(settings.id);
      args.has("id") && !reason.empty()) {
    std::fprintf(stderr, "error: --id %s: %s\n", model::printable(settings.id).c_str(),
                 reason.c_str());
    return std::nullopt;
  }
  settings.token = args.value("token");
  settings.advertise = args.value("advertise");
  if (args.has("metrics") && !(settings.metrics = parse_metrics_endpoint(args, error))) {
    std::fprintf(stderr, "error: --metrics: %s\n", error.c_str());
    return std::nullopt;
  }
  return settings;
}

int run_shard(const ParsedArgs& args) {
  const auto settings = read_shard_settings(args);
  return settings ? runtime::run_shard_service(*settings) : 2;
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
