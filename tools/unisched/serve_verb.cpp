// unisched serve: reads the hub's flags into runtime::HubServiceSettings and runs the hub
// (runtime/hub_service).
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>

#include "policy/framework.hpp"
#include "runtime/hub_service.hpp"
#include "runtime/network.hpp"
#include "runtime/tokens.hpp"
#include "tools/unisched/tls_flags.hpp"
#include "tools/unisched/verbs.hpp"

namespace unisched::cli {
namespace {

/// Reads the tokens file named by --`flag`, if given; false after printing why it is unusable.
bool read_tokens(const ParsedArgs& args, const std::string& flag, const std::string& id_name,
                 runtime::Tokens& tokens) {
  if (!args.has(flag)) {
    return true;
  }
  const std::string file = args.value(flag);
  std::ifstream stream(file);
  if (!stream) {
    std::fprintf(stderr, "error: --%s: cannot read %s\n", flag.c_str(), file.c_str());
    return false;
  }
  std::ostringstream text;
  text << stream.rdbuf();
  tokens = runtime::parse_tokens(text.str(), file, id_name);
  for (const std::string& problem : tokens.problems) {
    std::fprintf(stderr, "error: %s\n", problem.c_str());
  }
  return tokens.problems.empty();
}

/// --listen, the TLS flags, --grpc and --metrics; false after printing why they are unusable.
bool read_endpoints(const ParsedArgs& args, runtime::HubServiceSettings& settings) {
  std::string error;
  const auto listen = runtime::parse_endpoint(args.value("listen", "127.0.0.1:4242"), error);
  if (!listen) {
    std::fprintf(stderr, "error: --listen: %s\n", error.c_str());
    return false;
  }
  settings.listen = *listen;
  const auto tls = tls_files(args);
  if (!tls || !may_listen(args, *tls, settings.listen, "listen")) {
    return false;
  }
  settings.tls = *tls;
  if (args.has("grpc")) {
    settings.grpc = runtime::parse_endpoint(args.value("grpc"), error);
    if (!settings.grpc) {
      std::fprintf(stderr, "error: --grpc: %s\n", error.c_str());
      return false;
    }
    if (!may_listen(args, settings.tls, *settings.grpc, "grpc")) {
      return false;
    }
  }
  if (args.has("metrics")) {
    settings.metrics = parse_metrics_endpoint(args, error);
    if (!settings.metrics) {
      std::fprintf(stderr, "error: --metrics: %s\n", error.c_str());
      return false;
    }
  }
  return true;
}

/// --policy, --node-sample, --schedulers, the limits on agents' updates and streams, and
/// --queues-require-quota; false after printing why they are unusable.
bool read_scheduling(const ParsedArgs& args, runtime::HubServiceSettings& settings) {
  std::string error;
  settings.policy = args.value("policy", settings.policy);
  if (!policy::Registry::builtin().preset(settings.policy, error)) {
    std::fprintf(stderr, "error: --policy: %s\n", error.c_str());
    return false;
  }
  int64_t node_sample = 0;
  auto streams = static_cast<int64_t>(settings.grpc_streams_per_address);
  if (!read_int(args, "node-sample", 0, 100000, node_sample, error) ||
      !read_int(args, "schedulers", 1, 99, settings.schedulers, error) ||
      !read_int(args, "grpc-streams-per-address", 1, 192, streams, error) ||
      !read_update_limits(args, settings.supervisor.cluster.update_limits, error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return false;
  }
  if (args.has("node-sample")) {
    settings.node_sample = static_cast<size_t>(node_sample);
  }
  settings.grpc_streams_per_address = static_cast<size_t>(streams);
  settings.queues_require_quota = args.has("queues-require-quota");
  return true;
}

/// The hub's settings from its flags, or nullopt after printing why not; `exit_code` is then 2
/// for a usage error, 1 for a file that cannot be used.
std::optional<runtime::HubServiceSettings> read_serve_settings(const ParsedArgs& args,
                                                               int& exit_code) {
  exit_code = 2;
  runtime::HubServiceSettings settings;
  if (!read_endpoints(args, settings) || !read_scheduling(args, settings)) {
    return std::nullopt;
  }
  exit_code = 1;
  runtime::Tokens clusters;
  runtime::Tokens shards;
  if (!read_tokens(args, "cluster-tokens", "clusterID", clusters) ||
      !read_tokens(args, "shard-tokens", "shardID", shards)) {
    return std::nullopt;
  }
  settings.cluster_tokens = std::move(clusters.by_id);
  settings.shard_tokens = std::move(shards.by_id);
  settings.journal = args.value("journal");
  settings.journal_skip_damaged = args.has("journal-skip-damaged");
  return settings;
}

int run_serve(const ParsedArgs& args) {
  int exit_code = 2;
  const auto settings = read_serve_settings(args, exit_code);
  return settings ? runtime::run_hub_service(*settings) : exit_code;
}

}  // namespace

Verb serve_verb() {
  return Verb{
      "serve",
      "Run the centre and publish it for agents and clients",
      "unisched serve [--listen HOST:PORT]",
      "Runs the supervisor, the schedulers and one ClusterActor per registered cluster (on\n"
      "this host, or on shards that joined), and publishes the hub at HOST:PORT (CAF remote\n"
      "messaging over TCP) until SIGINT or SIGTERM. Port 0 picks a free port; the port in use\n"
      "is printed as \"listening on HOST:PORT\". With --journal, submitted requests and their\n"
      "decisions survive a restart; requests still undecided at a crash are decided again.\n"
      "\n"
      "Example (three terminals):\n"
      "  unisched serve --listen 127.0.0.1:4242\n"
      "  unisched agent --hub 127.0.0.1:4242 --profile config/profiles/t4-vm-useast.yaml\n"
      "  unisched submit -f config/requests/examples.yaml --hub 127.0.0.1:4242 --wait",
      [] {
        std::vector<Flag> flags = {
            {"listen", '\0', "HOST:PORT", false,
             "where to publish the hub (default 127.0.0.1:4242)"},
            {"cluster-tokens", '\0', "FILE", false,
             "\"clusterID token\" lines: agents must present their cluster's token"},
            {"shard-tokens", '\0', "FILE", false,
             "\"shardID token\" lines: each shard must present its own token (with cluster "
             "tokens and none of these, no shard is admitted)"},
            {"schedulers", '\0', "N", false, "SchedulerActors racing on the clusters (default 2)"},
            {"policy", '\0', "NAME", false,
             "spread, binpack, balanced, bestfit, random or fgd (default balanced)"},
            node_sample_flag(),
            {"journal", '\0', "FILE", false,
             "keep submitted requests and decisions in FILE (created if missing; any other "
             "file is refused)"},
            {"journal-skip-damaged", '\0', "", false,
             "start even when the journal has damaged records between intact ones, dropping "
             "them"},
            {"queues-require-quota", '\0', "", false,
             "place a request that names a queue only within that queue's SchedulingQuota: "
             "until one is applied, its work waits (QUEUED); without this flag such a queue is "
             "not limited"},
            {"grpc", '\0', "HOST:PORT", false,
             "also serve ClusterMetadataService over gRPC, for agents in any language"},
            {"grpc-streams-per-address", '\0', "N", false,
             "update streams open at once from one address (default 64, at most 192 in all): "
             "raise it for agents that share an address"},
            metrics_flag(true)};
        for (Flag& flag : update_limit_flags()) {
          flags.push_back(std::move(flag));
        }
        for (Flag& flag : tls_flags()) {
          flags.push_back(std::move(flag));
        }
        flags.push_back(insecure_plaintext_flag());
        return flags;
      }(),
      run_serve,
  };
}

}  // namespace unisched::cli
