#include "tools/bench/schedule.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>

#include <thread>

#include "actors/actor_types.hpp"
#include "actors/quota_actor.hpp"
#include "actors/scheduler_actor.hpp"
#include "messages/caf_types.hpp"
#include "model/manifest.hpp"
#include "tools/bench/bench_actors.hpp"
#include "tools/bench/bench_client.hpp"
#include "tools/bench/fleet.hpp"
#include "tools/bench/heap.hpp"

namespace unisched::bench {
namespace {

using namespace unisched::atoms;

constexpr const char* kBenchQueue = "bench";

/// One replica of 2 cores, 8 GiB and one A100, optionally pinned to one cluster, optionally
/// charged to the bench's quota queue.
/// What the bench's clients submit: 2 cpus, 8 GiB and an A100; `only_cluster`, when given,
/// pins it there; without `device`, a small cpu-only request (a probe).
model::SchedulingRequestSpec request_spec(const std::string& only_cluster = "", bool queued = false,
                                          bool device = true) {
  std::string text =
      "apiVersion: scheduling.cluster.io/v1\nkind: SchedulingRequest\nmetadata:\n  name: bench\n"
      "spec:\n  resources:\n";
  text += device ? "    cpu: \"2\"\n    memory: 8Gi\n    accelerators:\n"
                   "      - model: NVIDIA-A100-SXM4-80GB\n        count: 1\n"
                 : "    cpu: 100m\n    memory: 64Mi\n";
  if (!only_cluster.empty()) {
    text += "  placement:\n    affinity:\n      clusters: [" + only_cluster + "]\n";
  }
  const auto decoded = model::decode_manifest({text, 1});
  auto spec = std::get<model::SchedulingRequest>(*decoded.manifest).spec;
  spec.queue = queued ? kBenchQueue : "";
  return spec;
}

/// A ledger holding one quota for the bench's queue, far larger than the fleet.
actors::QuotaActor spawn_bench_ledger(caf::actor_system& system, caf::scoped_actor& self) {
  const actors::QuotaActor ledger = actors::spawn_quota_actor(system);
  v1::QuotaDefinition quota;
  quota.set_name(kBenchQueue);
  quota.set_queue(kBenchQueue);
  quota.set_weight(1);
  (*quota.mutable_hard())["GPU"] = int64_t{1} << 50;
  (*quota.mutable_hard())["cpu"] = int64_t{1} << 50;
  self->request(ledger, std::chrono::seconds(10), quota)
      .receive([](const v1::QuotaStatus&) {}, [](const caf::error&) {});
  return ledger;
}

v1::SchedulerSummary summary_of(caf::scoped_actor& self, const actors::SchedulerActor& scheduler) {
  v1::SchedulerSummary summary;
  self->request(scheduler, std::chrono::seconds(30), summary_atom_v)
      .receive([&](const v1::SchedulerSummary& answer) { summary = answer; },
               [](const caf::error&) {});
  return summary;
}

/// A scheduler subscribes to its clusters on its own time; it is ready once a request pinned to
/// each cluster is placed there (cpu only: a cluster whose devices an earlier run took still
/// takes it). Returns false after `attempts` tries of one cluster.
bool wait_subscribed(caf::scoped_actor& self, const actors::SchedulerActor& scheduler, int index,
                     int clusters, bool queued) {
  for (int c = 0; c < clusters; ++c) {
    const auto pinned = request_spec(cluster_name(c), queued, false);
    bool placed = false;
    for (int attempt = 0; attempt < 500 && !placed; ++attempt) {
      self->request(scheduler, std::chrono::seconds(30), submit_atom_v,
                    "probe-" + std::to_string(index) + "-" + std::to_string(c) + "-" +
                        std::to_string(attempt),
                    pinned)
          .receive(
              [&](const v1::SchedulingDecision& decision) {
                placed = decision.status() == v1::SchedulingDecision::PLACED;
              },
              [](const caf::error&) {});
      if (!placed) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
    if (!placed) {
      return false;
    }
  }
  return true;
}

}  // namespace

int ScheduleParameters::effective_node_sample() const {
  return node_sample >= 0 ? node_sample
                          : static_cast<int>(policy::adaptive_node_sample(
                                static_cast<size_t>(clusters) * static_cast<size_t>(nodes)));
}

ScheduleResult run_schedulers(caf::actor_system& system, const CentreActor& centre,
                              const ScheduleParameters& parameters) {
  ScheduleResult result;
  std::string error;
  auto policy = policy::Registry::builtin().preset(parameters.policy, error);
  if (!policy) {
    result.problem = error;
    return result;
  }
  policy::set_node_sample(*policy, parameters.node_sample < 0
                                       ? std::nullopt
                                       : std::optional<size_t>(parameters.node_sample));
  std::vector<policy::ClusterInfo> clusters;
  for (int c = 0; c < parameters.clusters; ++c) {
    clusters.push_back(
        {cluster_name(c), "bench-region", "bench-zone", model::MachineType::VirtualMachine, false});
  }
  actors::SchedulerSettings settings;
  settings.commit_mode = parameters.mode;
  settings.max_in_flight = static_cast<size_t>(parameters.in_flight);
  caf::scoped_actor coordinator{system};
  const actors::QuotaActor ledger =
      parameters.quotas ? spawn_bench_ledger(system, coordinator) : actors::QuotaActor{};
  std::vector<actors::SchedulerActor> schedulers;
  for (int s = 0; s < parameters.schedulers; ++s) {
    schedulers.push_back(
        actors::spawn_scheduler_actor(system, centre, clusters, *policy, settings, ledger));
    if (!wait_subscribed(coordinator, schedulers.back(), s, parameters.clusters,
                         parameters.quotas)) {
      result.problem = "scheduler " + std::to_string(s) + " never saw every cluster";
    }
  }
  std::vector<v1::SchedulerSummary> before;
  std::vector<std::shared_ptr<ClientRecord>> records;
  std::vector<caf::actor> clients;
  result.resident_bytes = resident_bytes();
  result.heap_bytes = heap_bytes_in_use();
  if (result.problem.empty()) {
    for (int s = 0; s < parameters.schedulers; ++s) {
      before.push_back(summary_of(coordinator, schedulers[static_cast<size_t>(s)]));
      records.push_back(std::make_shared<ClientRecord>());
      clients.push_back(spawn_bench_client(
          system, schedulers[static_cast<size_t>(s)], coordinator, s,
          request_spec("", parameters.quotas, parameters.device_requests), parameters.window,
          std::chrono::seconds(parameters.seconds), records.back()));
    }
    const auto start = Clock::now();
    for (const caf::actor& client : clients) {
      caf::anon_send(client, push_atom_v);
    }
    for (size_t done = 0; done < clients.size(); ++done) {
      coordinator->receive([](summary_atom, int) {},
                           caf::after(std::chrono::seconds(parameters.seconds + 120)) >>
                               [&] { result.problem = "a client never finished"; });
    }
    result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  }
  std::vector<double> latencies;
  for (size_t s = 0; s < records.size(); ++s) {
    const ClientRecord& record = *records[s];
    latencies.insert(latencies.end(), record.decision_ms.begin(), record.decision_ms.end());
    result.placed += record.placed;
    if (result.problem.empty()) {
      result.problem = record.problem;
    }
    const v1::SchedulerSummary after = summary_of(coordinator, schedulers[s]);
    result.commits += after.commits() - before[s].commits();
    result.conflicts += after.conflicts() - before[s].conflicts();
    result.retries += after.retries() - before[s].retries();
  }
  for (const caf::actor& actor : clients) {
    caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
  }
  for (const actors::SchedulerActor& actor : schedulers) {
    caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
  }
  if (ledger) {
    caf::anon_send_exit(ledger, caf::exit_reason::user_shutdown);
  }
  result.decisions = latencies.size();
  result.decisions_per_s =
      result.seconds > 0 ? static_cast<double>(result.decisions) / result.seconds : 0;
  result.p50_ms = percentile(latencies, 0.50);
  result.p99_ms = percentile(latencies, 0.99);
  const uint64_t attempts = result.commits + result.conflicts;
  result.conflict_rate = attempts ? static_cast<double>(result.conflicts) / attempts : 0;
  result.retry_rate = result.decisions ? static_cast<double>(result.retries) / result.decisions : 0;
  return result;
}

ScheduleResult schedule(const ScheduleParameters& parameters) {
  caf::actor_system_config config;
  actors::configure_actor_system(config);
  caf::actor_system system{config};
  const CentreActor centre = spawn_centre(system, nullptr);
  ScheduleResult result;
  {
    StreamParameters listing;
    listing.clusters = parameters.clusters;
    listing.nodes = parameters.nodes;
    listing.gpus = parameters.gpus;
    Fleet fleet(system, centre, listing, nullptr);
    result.problem = fleet.wait_listed();
    if (result.problem.empty()) {
      result = run_schedulers(system, centre, parameters);
    }
  }
  caf::anon_send_exit(centre, caf::exit_reason::user_shutdown);
  return result;
}

}  // namespace unisched::bench
