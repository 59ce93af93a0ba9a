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
#include <optional>
#include <sstream>

#include "actors/quota_actor.hpp"
#include "actors/scheduler_actor.hpp"
#include "actors/supervisor.hpp"
#include "policy/framework.hpp"
#include "runtime/grpc_service.hpp"
#include "runtime/hub.hpp"
#include "runtime/metrics_source.hpp"
#include "runtime/network.hpp"
#include "runtime/quota_book.hpp"
#include "runtime/request_book.hpp"
#include "runtime/status_server.hpp"
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

/// The hub's requests, recovered from --journal when given; null after printing why the journal
/// cannot be used.
std::shared_ptr<runtime::RequestBook> open_request_book(const ParsedArgs& args) {
  const std::string journal = args.value("journal");
  auto book = std::make_shared<runtime::RequestBook>(journal);
  if (journal.empty()) {
    spdlog::info("no --journal: submitted requests are forgotten when the hub stops");
    return book;
  }
  std::vector<std::string> warnings;
  const absl::Status recovered = book->recover(args.has("journal-skip-damaged"), warnings);
  for (const std::string& warning : warnings) {
    spdlog::warn("journal: {}", warning);
  }
  if (!recovered.ok()) {
    std::fprintf(stderr, "error: --journal: %s\n", std::string(recovered.message()).c_str());
    return nullptr;
  }
  const v1::RequestList known = book->list();
  size_t lost = 0;
  for (const auto& request : known.requests()) {
    lost += request.phase() == v1::RequestStatus::LOST ? 1 : 0;
  }
  spdlog::info(
      "journal: {} requests recovered from {}; {} were still pending when the hub stopped and "
      "are reported as LOST",
      known.requests_size(), journal, lost);
  return book;
}

/// Declarations durable beside the request journal ("<journal>.quotas", "<journal>.profiles").
template <class Book>
std::shared_ptr<Book> open_declarations(const ParsedArgs& args, const std::string& suffix) {
  const std::string journal = args.value("journal");
  auto book = std::make_shared<Book>(journal.empty() ? "" : journal + suffix);
  std::vector<std::string> warnings;
  const absl::Status recovered = book->recover(warnings);
  for (const std::string& warning : warnings) {
    spdlog::warn("journal: {}", warning);
  }
  if (!recovered.ok()) {
    std::fprintf(stderr, "error: --journal: %s\n", std::string(recovered.message()).c_str());
    return nullptr;
  }
  return book;
}

/// The ledger as it stood: the quotas, and what decided, unfinished work holds (from the request
/// journal's decisions, each placement once).
void restore_ledger(const actors::QuotaActor& ledger, const runtime::QuotaBook& quotas,
                    const runtime::RequestBook& book) {
  v1::QuotaRestore restore;
  for (const auto& definition : quotas.definitions()) {
    *restore.add_quotas() = definition;
  }
  for (auto& holding : book.quota_holdings()) {
    *restore.add_holdings() = std::move(holding);
  }
  if (restore.quotas_size() > 0 || restore.holdings_size() > 0) {
    caf::anon_send(ledger, std::move(restore));
  }
}

/// What serve runs with, read from its flags.
struct ServeOptions {
  runtime::Endpoint listen;
  std::optional<runtime::Endpoint> grpc;
  std::optional<runtime::Endpoint> metrics;
  runtime::TlsFiles tls;
  runtime::Tokens tokens;
  runtime::Tokens shard_tokens;
  std::string policy = "balanced";    ///< a preset, made once per scheduler (see Registry::preset)
  std::optional<size_t> node_sample;  ///< nullopt: the adaptive rule
  int64_t schedulers = 2;
  int64_t grpc_streams_per_address = runtime::GrpcStreamLimits{}.per_peer;
  bool queues_require_quota = false;
  actors::SupervisorSettings supervisor;
};

/// The options, or nullopt after printing why not; `exit_code` is then 2 for a usage error, 1
/// for a file that cannot be used.
std::optional<ServeOptions> read_serve_options(const ParsedArgs& args, int& exit_code) {
  exit_code = 2;
  ServeOptions options;
  std::string error;
  const auto listen = runtime::parse_endpoint(args.value("listen", "127.0.0.1:4242"), error);
  if (!listen) {
    std::fprintf(stderr, "error: --listen: %s\n", error.c_str());
    return std::nullopt;
  }
  options.listen = *listen;
  const auto tls = tls_files(args);
  if (!tls || !may_listen(args, *tls, options.listen, "listen")) {
    return std::nullopt;
  }
  options.tls = *tls;
  if (args.has("grpc")) {
    options.grpc = runtime::parse_endpoint(args.value("grpc"), error);
    if (!options.grpc) {
      std::fprintf(stderr, "error: --grpc: %s\n", error.c_str());
      return std::nullopt;
    }
    if (!may_listen(args, options.tls, *options.grpc, "grpc")) {
      return std::nullopt;
    }
  }
  if (args.has("metrics")) {
    options.metrics = parse_metrics_endpoint(args, error);
    if (!options.metrics) {
      std::fprintf(stderr, "error: --metrics: %s\n", error.c_str());
      return std::nullopt;
    }
  }
  options.policy = args.value("policy", options.policy);
  if (!policy::Registry::builtin().preset(options.policy, error)) {
    std::fprintf(stderr, "error: --policy: %s\n", error.c_str());
    return std::nullopt;
  }
  int64_t node_sample = 0;
  if (!read_int(args, "node-sample", 0, 100000, node_sample, error) ||
      !read_int(args, "schedulers", 1, 99, options.schedulers, error) ||
      !read_int(args, "grpc-streams-per-address", 1, 192, options.grpc_streams_per_address,
                error) ||
      !read_update_limits(args, options.supervisor.cluster.update_limits, error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return std::nullopt;
  }
  if (args.has("node-sample")) {
    options.node_sample = static_cast<size_t>(node_sample);
  }
  options.queues_require_quota = args.has("queues-require-quota");
  exit_code = 1;
  if (!read_tokens(args, "cluster-tokens", "clusterID", options.tokens) ||
      !read_tokens(args, "shard-tokens", "shardID", options.shard_tokens)) {
    return std::nullopt;
  }
  return options;
}

/// One SchedulerActor per --schedulers, each with its own copy of the policy.
std::vector<actors::SchedulerActor> spawn_schedulers(caf::actor_system& system,
                                                     const actors::SupervisorActor& supervisor,
                                                     const actors::QuotaActor& ledger,
                                                     const ServeOptions& options) {
  std::vector<actors::SchedulerActor> schedulers;
  for (int64_t i = 0; i < options.schedulers; ++i) {
    std::string unused;  // the name was checked with the flags
    policy::Policy policy = *policy::Registry::builtin().preset(options.policy, unused);
    policy::set_node_sample(policy, options.node_sample);
    schedulers.push_back(actors::spawn_scheduler_actor(system, supervisor, {}, policy,
                                                       actors::SchedulerSettings{}, ledger));
  }
  return schedulers;
}

/// The gRPC door, when --grpc asks for it; false after printing why it cannot open.
bool open_grpc(caf::actor_system& system, const runtime::HubActor& hub, const ServeOptions& options,
               std::unique_ptr<runtime::GrpcMetadataServer>& out) {
  if (!options.grpc) {
    return true;
  }
  runtime::GrpcServiceSettings settings;
  settings.tokens = options.tokens.by_id;
  settings.streams.per_peer = static_cast<size_t>(options.grpc_streams_per_address);
  std::string error;
  out =
      runtime::GrpcMetadataServer::start(system, hub, *options.grpc, options.tls, settings, error);
  if (!out) {
    std::fprintf(stderr, "error: --grpc: %s\n", error.c_str());
    return false;
  }
  std::printf("gRPC serving on %s:%u\n", options.grpc->host.c_str(),
              static_cast<unsigned>(out->port()));
  return true;
}

/// The metrics port and status page, when --metrics asks for them; false after printing why
/// it cannot open.
bool open_metrics(caf::actor_system& system, const runtime::HubActor& hub,
                  const std::vector<actors::SchedulerActor>& schedulers,
                  const ServeOptions& options, std::unique_ptr<runtime::StatusServer>& out) {
  if (!options.metrics) {
    return true;
  }
  runtime::StatusPages pages;
  pages.metrics = [&system, hub, schedulers] {
    return runtime::render_hub_metrics(
        runtime::collect_hub_metrics(system, hub, schedulers, runtime::kScrapePatience));
  };
  pages.status_json = [&system, hub, schedulers] {
    return runtime::render_status_json(
        runtime::collect_status(system, hub, schedulers, runtime::kScrapePatience));
  };
  out = open_metrics_port(*options.metrics, std::move(pages));
  return out != nullptr;
}

int run_serve(const ParsedArgs& args) {
  int exit_code = 2;
  const auto options = read_serve_options(args, exit_code);
  if (!options) {
    return exit_code;
  }
  const auto book = open_request_book(args);
  const auto quotas = book ? open_declarations<runtime::QuotaBook>(args, ".quotas") : nullptr;
  const auto profiles =
      quotas ? open_declarations<runtime::ProfileBook>(args, ".profiles") : nullptr;
  if (!book || !quotas || !profiles) {
    return 1;
  }
  runtime::block_stop_signals();
  caf::actor_system_config config;
  auto system = runtime::make_networked_system(config, options->tls);
  if (!system) {
    return 1;
  }
  const actors::SupervisorActor supervisor = actors::spawn_supervisor(*system, options->supervisor);
  actors::QuotaActorSettings ledger_settings;
  ledger_settings.queues_require_quota = options->queues_require_quota;
  const actors::QuotaActor ledger = actors::spawn_quota_actor(*system, ledger_settings);
  restore_ledger(ledger, *quotas, *book);
  const std::vector<actors::SchedulerActor> schedulers =
      spawn_schedulers(*system, supervisor, ledger, *options);
  const runtime::HubActor hub = runtime::spawn_hub(
      *system, supervisor, schedulers,
      {options->tokens.by_id, options->shard_tokens.by_id, book, ledger, quotas, profiles});
  caf::anon_send(supervisor, atoms::bind_atom_v, actors::PlacementListenerActor{hub});
  const auto stop_all = [&] {
    caf::anon_send_exit(hub, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(ledger, caf::exit_reason::user_shutdown);
    for (const actors::SchedulerActor& scheduler : schedulers) {
      caf::anon_send_exit(scheduler, caf::exit_reason::user_shutdown);
    }
    caf::anon_send_exit(supervisor, caf::exit_reason::user_shutdown);
  };
  std::string error;
  const auto port = runtime::publish(*system, hub, options->listen, options->tls, error);
  if (!port) {
    std::fprintf(stderr, "error: cannot listen on %s: %s\n", options->listen.to_string().c_str(),
                 error.c_str());
    stop_all();
    return 1;
  }
  std::unique_ptr<runtime::GrpcMetadataServer> grpc_server;
  std::unique_ptr<runtime::StatusServer> metrics;
  if (!open_grpc(*system, hub, *options, grpc_server) ||
      !open_metrics(*system, hub, schedulers, *options, metrics)) {
    stop_all();
    return 1;
  }
  std::printf("listening on %s:%u\n", options->listen.host.c_str(), static_cast<unsigned>(*port));
  std::fflush(stdout);
  const int signal = runtime::wait_for_stop_signal();
  spdlog::info("stopping on signal {}", signal);
  if (grpc_server) {
    grpc_server->shutdown();
  }
  metrics.reset();  // before the actors it asks go
  stop_all();
  return 0;
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
      "decisions survive a restart; requests still pending at a crash are reported as LOST.\n"
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
