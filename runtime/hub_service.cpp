#include "runtime/hub_service.hpp"

#include <spdlog/spdlog.h>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/send.hpp>

#include <cstdio>
#include <memory>
#include <optional>
#include <vector>

#include "actors/quota_actor.hpp"
#include "actors/scheduler_actor.hpp"
#include "messages/caf_types.hpp"
#include "policy/framework.hpp"
#include "runtime/grpc_service.hpp"
#include "runtime/hub.hpp"
#include "runtime/metrics_source.hpp"
#include "runtime/quota_book.hpp"
#include "runtime/request_book.hpp"
#include "runtime/status_json.hpp"
#include "runtime/status_server.hpp"

namespace unisched::runtime {
namespace {

/// The hub's requests, recovered from --journal when given; null after printing why the journal
/// cannot be used.
std::shared_ptr<RequestBook> open_request_book(const HubServiceSettings& settings) {
  const std::string& journal = settings.journal;
  auto book = std::make_shared<RequestBook>(journal);
  if (journal.empty()) {
    spdlog::info("no --journal: submitted requests are forgotten when the hub stops");
    return book;
  }
  std::vector<std::string> warnings;
  const absl::Status recovered = book->recover(settings.journal_skip_damaged, warnings);
  for (const std::string& warning : warnings) {
    spdlog::warn("journal: {}", warning);
  }
  if (!recovered.ok()) {
    std::fprintf(stderr, "error: --journal: %s\n", std::string(recovered.message()).c_str());
    return nullptr;
  }
  const v1::RequestList known = book->list();
  size_t again = 0;
  for (const auto& request : known.requests()) {
    again += request.phase() == v1::RequestStatus::PENDING ? 1 : 0;
  }
  spdlog::info(
      "journal: {} requests recovered from {}; {} were undecided when the hub stopped and are "
      "decided again",
      known.requests_size(), journal, again);
  return book;
}

/// Declarations durable beside the request journal ("<journal>.quotas", "<journal>.profiles").
template <class Book>
std::shared_ptr<Book> open_declarations(const std::string& journal, const std::string& suffix) {
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
void restore_ledger(const actors::QuotaActor& ledger, const QuotaBook& quotas,
                    const RequestBook& book) {
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

/// One SchedulerActor per --schedulers, each with its own copy of the policy.
std::vector<actors::SchedulerActor> spawn_schedulers(caf::actor_system& system,
                                                     const actors::SupervisorActor& supervisor,
                                                     const actors::QuotaActor& ledger,
                                                     const HubServiceSettings& settings) {
  std::vector<actors::SchedulerActor> schedulers;
  for (int64_t i = 0; i < settings.schedulers; ++i) {
    std::string unused;  // run_hub_service checked the name
    policy::Policy policy = *policy::Registry::builtin().preset(settings.policy, unused);
    policy::set_node_sample(policy, settings.node_sample);
    schedulers.push_back(actors::spawn_scheduler_actor(system, supervisor, {}, policy,
                                                       actors::SchedulerSettings{}, ledger));
  }
  return schedulers;
}

/// The gRPC door, when --grpc asks for it; false after printing why it cannot open.
bool open_grpc(caf::actor_system& system, const HubActor& hub, const HubServiceSettings& settings,
               std::unique_ptr<GrpcMetadataServer>& out) {
  if (!settings.grpc) {
    return true;
  }
  GrpcServiceSettings service;
  service.tokens = settings.cluster_tokens;
  service.streams.per_peer = settings.grpc_streams_per_address;
  std::string error;
  out = GrpcMetadataServer::start(system, hub, *settings.grpc, settings.tls, service, error);
  if (!out) {
    std::fprintf(stderr, "error: --grpc: %s\n", error.c_str());
    return false;
  }
  std::printf("gRPC serving on %s:%u\n", settings.grpc->host.c_str(),
              static_cast<unsigned>(out->port()));
  return true;
}

/// The metrics port and status page, when --metrics asks for them; false after printing why
/// it cannot open.
bool open_metrics(caf::actor_system& system, const HubActor& hub,
                  const std::vector<actors::SchedulerActor>& schedulers,
                  const HubServiceSettings& settings, std::unique_ptr<StatusServer>& out) {
  if (!settings.metrics) {
    return true;
  }
  StatusPages pages;
  pages.metrics = [&system, hub, schedulers] {
    return render_hub_metrics(collect_hub_metrics(system, hub, schedulers, kScrapePatience));
  };
  pages.status_json = [&system, hub, schedulers] {
    return render_status_json(collect_status(system, hub, schedulers, kScrapePatience));
  };
  out = open_metrics_port(settings.metrics->host, settings.metrics->port, std::move(pages));
  return out != nullptr;
}

/// What the hub must not lose, recovered from the journal (nothing without one).
struct HubBooks {
  std::shared_ptr<RequestBook> requests;
  std::shared_ptr<QuotaBook> quotas;
  std::shared_ptr<ProfileBook> profiles;
};

/// The books, or nullopt after printing why the journal cannot be used.
std::optional<HubBooks> open_books(const HubServiceSettings& settings) {
  HubBooks books;
  books.requests = open_request_book(settings);
  books.quotas =
      books.requests ? open_declarations<QuotaBook>(settings.journal, ".quotas") : nullptr;
  books.profiles =
      books.quotas ? open_declarations<ProfileBook>(settings.journal, ".profiles") : nullptr;
  if (!books.profiles) {
    return std::nullopt;
  }
  return books;
}

/// The centre's actors: the supervisor, the quota ledger, the schedulers and the hub.
struct HubActors {
  actors::SupervisorActor supervisor;
  actors::QuotaActor ledger;
  std::vector<actors::SchedulerActor> schedulers;
  HubActor hub;

  void stop() const {
    caf::anon_send_exit(hub, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(ledger, caf::exit_reason::user_shutdown);
    for (const actors::SchedulerActor& scheduler : schedulers) {
      caf::anon_send_exit(scheduler, caf::exit_reason::user_shutdown);
    }
    caf::anon_send_exit(supervisor, caf::exit_reason::user_shutdown);
  }
};

HubActors start_actors(caf::actor_system& system, const HubServiceSettings& settings,
                       const HubBooks& books) {
  HubActors started;
  started.supervisor = actors::spawn_supervisor(system, settings.supervisor);
  actors::QuotaActorSettings ledger_settings;
  ledger_settings.queues_require_quota = settings.queues_require_quota;
  started.ledger = actors::spawn_quota_actor(system, ledger_settings);
  restore_ledger(started.ledger, *books.quotas, *books.requests);
  started.schedulers = spawn_schedulers(system, started.supervisor, started.ledger, settings);
  started.hub = spawn_hub(system, started.supervisor, started.schedulers,
                          {settings.cluster_tokens, settings.shard_tokens, books.requests,
                           started.ledger, books.quotas, books.profiles});
  caf::anon_send(started.supervisor, atoms::bind_atom_v,
                 actors::PlacementListenerActor{started.hub});
  return started;
}

}  // namespace

int run_hub_service(const HubServiceSettings& settings) {
  std::string error;
  if (!policy::Registry::builtin().preset(settings.policy, error)) {
    std::fprintf(stderr, "error: policy: %s\n", error.c_str());
    return 1;
  }
  const auto books = open_books(settings);
  if (!books) {
    return 1;
  }
  block_stop_signals();
  caf::actor_system_config config;
  auto system = make_networked_system(config, settings.tls);
  if (!system) {
    return 1;
  }
  const HubActors centre = start_actors(*system, settings, *books);
  const auto port = publish(*system, centre.hub, settings.listen, settings.tls, error);
  if (!port) {
    std::fprintf(stderr, "error: cannot listen on %s: %s\n", settings.listen.to_string().c_str(),
                 error.c_str());
    centre.stop();
    return 1;
  }
  std::unique_ptr<GrpcMetadataServer> grpc_server;
  std::unique_ptr<StatusServer> metrics;
  if (!open_grpc(*system, centre.hub, settings, grpc_server) ||
      !open_metrics(*system, centre.hub, centre.schedulers, settings, metrics)) {
    centre.stop();
    return 1;
  }
  std::printf("listening on %s:%u\n", settings.listen.host.c_str(), static_cast<unsigned>(*port));
  std::fflush(stdout);
  const int signal = wait_for_stop_signal();
  spdlog::info("stopping on signal {}", signal);
  if (grpc_server) {
    grpc_server->shutdown();
  }
  metrics.reset();  // before the actors it asks go
  centre.stop();
  return 0;
}

}  // namespace unisched::runtime
