// Quotas with the ledger and the clusters in different processes: this test process is the hub
// (supervisor, quota ledger, 4 racing schedulers, the hub published on loopback) and a
// `unisched shard` child process hosts both clusters' ClusterActors, so every commit, every take
// and every finished placement crosses BASP between the two. 5 tenants of a cohort submit 10,000
// requests that run and finish; the observer's own ledger checks after every take and release
// that no tenant passes its limit nor the cohort its pool, and the shares held while every tenant
// waits are compared with the weighted DRF allocation (tests/quota_fairness.hpp).
#include <caf/send.hpp>

#include <boost/test/unit_test.hpp>
#include <mutex>

#include "actors/agent_actor.hpp"
#include "actors/scheduler_actor.hpp"
#include "actors/supervisor.hpp"
#include "policy/framework.hpp"
#include "runtime/hub.hpp"
#include "runtime/quota_book.hpp"
#include "runtime/request_book.hpp"
#include "runtime/workload_client.hpp"
#include "tests/hub_process.hpp"
#include "tests/quota_fairness.hpp"
#include "tests/simulation_fixtures.hpp"

using namespace unisched;
using namespace unisched::atoms;
using namespace unisched::testing;

namespace {

/// The centre as `unisched serve` wires it, in this process, with an observed quota ledger.
struct ObservedHub {
  ActorHarness harness{ActorHarness::Networked{}};
  actors::SupervisorActor supervisor;
  actors::QuotaActor ledger;
  std::vector<actors::SchedulerActor> schedulers;
  runtime::HubActor hub;
  uint16_t port = 0;

  ObservedHub(int scheduler_count, std::function<void(const actors::QuotaLedgerEvent&)> observer) {
    caf::actor_system& system = *harness.system;
    supervisor = actors::spawn_supervisor(system, actors::SupervisorSettings{});
    ledger = actors::spawn_quota_actor(system, {std::move(observer)});
    std::string error;
    const auto policy = *policy::Registry::builtin().preset("binpack", error);
    actors::SchedulerSettings settings;
    settings.commit_mode = actors::CommitMode::NodeRevisions;
    settings.max_retries = 20;
    for (int i = 0; i < scheduler_count; ++i) {
      schedulers.push_back(
          actors::spawn_scheduler_actor(system, supervisor, {}, policy, settings, ledger));
    }
    runtime::HubSettings hub_settings;
    hub_settings.book = std::make_shared<runtime::RequestBook>("");
    hub_settings.quota = ledger;
    hub_settings.quotas = std::make_shared<runtime::QuotaBook>("");
    hub = runtime::spawn_hub(system, supervisor, schedulers, hub_settings);
    caf::anon_send(supervisor, bind_atom_v, actors::PlacementListenerActor{hub});
    const auto published = runtime::publish(system, hub, {"127.0.0.1", 0}, {}, error);
    BOOST_TEST_REQUIRE(published.has_value(), error);
    port = *published;
  }
  ~ObservedHub() {
    caf::anon_send_exit(hub, caf::exit_reason::user_shutdown);
    for (const auto& scheduler : schedulers) {
      caf::anon_send_exit(scheduler, caf::exit_reason::user_shutdown);
    }
    caf::anon_send_exit(ledger, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(supervisor, caf::exit_reason::user_shutdown);
  }
  ObservedHub(const ObservedHub&) = delete;
  ObservedHub& operator=(const ObservedHub&) = delete;

  /// A quiet simulated cluster's agent in this process, registered through the hub as an agent
  /// process would; it pushes to its ClusterActor on the shard over a direct connection.
  actors::LocalAgentActor join(const std::string& id, uint64_t seed) {
    actors::AgentSettings settings;
    settings.observe_interval = std::chrono::milliseconds(5);
    settings.push_interval = std::chrono::milliseconds(10);
    settings.connect_directly = [&system = *harness.system](const std::string& endpoint) {
      runtime::connect_async(system, endpoint, {});
    };
    adapters::SimulationOptions quiet;
    quiet.seed = seed;
    quiet.membership_events_per_second = 0;
    quiet.pod_events_per_second = 0;
    const auto agent = actors::spawn_agent_actor(
        *harness.system, std::make_shared<adapters::SimulatedCluster>(small_profile(id), quiet),
        seed, settings);
    v1::ClusterRegistration registration;
    registration.mutable_identity()->set_cluster_id(id);
    registration.set_region("r1");
    registration.set_zone("z1");
    registration.set_machine_type("VirtualMachine");
    harness.ask<actors::ClusterActor>(hub, register_atom_v, registration,
                                      actors::AgentActor{agent});
    return agent;
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(quota_shard)

BOOST_AUTO_TEST_CASE(racing_schedulers_never_pass_a_quota_on_clusters_hosted_by_a_shard) {
  const std::vector<Tenant> tenants = weighted_tenants();
  constexpr int kPerTenant = 2'000;  // 10,000 requests in all
  // The observer runs in the ledger's thread; this thread reads it under the same lock.
  std::mutex guard;
  auto observer = std::make_shared<LimitObserver>();
  observer->pool_gpus = kWeightedPool;
  for (const Tenant& tenant : tenants) {
    observer->tenants[tenant.queue] = tenant;
  }
  ContendedShares shares(tenants);
  observer->after_event = [&] { shares.sample(*observer); };
  ObservedHub centre(4, [&guard, observer](const actors::QuotaLedgerEvent& event) {
    const std::lock_guard<std::mutex> lock(guard);
    observer->on_event(event);
  });
  ScratchDirectory dir;
  ChildProcess shard(
      {kBinary, "shard", "--hub", "127.0.0.1:" + std::to_string(centre.port), "--id", "s1"},
      dir.path() + "/shard.log");
  ActorHarness::wait_until(
      [&] { return shard.output().find("shard s1 registered with") != std::string::npos; },
      "the shard joined", std::chrono::seconds(20));
  std::map<std::string, actors::LocalAgentActor> agents;
  uint64_t seed = 1;
  for (const std::string id : {"c1", "c2"}) {
    agents[id] = centre.join(id, seed++);
    BOOST_TEST(
        centre.harness.ask<v1::ClusterHome>(centre.supervisor, shard_atom_v, id).shard_id() ==
        "s1");
    ActorHarness::wait_until(
        [&] {
          const auto summary =
              centre.harness.try_ask<v1::ClusterSummary>(centre.supervisor, summary_atom_v, id);
          return summary && summary->healthy();
        },
        id + " healthy on the shard", std::chrono::seconds(20));
  }
  for (const Tenant& tenant : tenants) {
    centre.harness.ask<v1::QuotaStatus>(centre.ledger, definition_of(tenant, "lab"));
  }
  const runtime::WorkloadClientActor client =
      runtime::spawn_workload_client(*centre.harness.system, centre.schedulers);
  for (const auto& [id, agent] : agents) {
    caf::anon_send(client, bind_atom_v, id, actors::AgentActor{agent});
  }
  submit_interleaved(client, tenants, kPerTenant, 5, 40);
  const uint64_t total = static_cast<uint64_t>(kPerTenant) * tenants.size();
  // Four schedulers race for two small clusters: on a loaded machine a request can lose 21
  // commits in a row and give up as the scheduler's retry bound says, so the wait is for every
  // request to settle, and only such give-ups, rare, may keep one from being placed.
  v1::WorkloadReport report;
  ActorHarness::wait_until(
      [&] {
        report = centre.harness.ask<v1::WorkloadReport>(client, summary_atom_v);
        return report.placed() + report.unschedulable() == total;
      },
      "every request settled", std::chrono::minutes(3));
  BOOST_TEST(report.placed() >= total * 99 / 100);
  for (const auto& [reason, count] : report.unschedulable_by_reason()) {
    BOOST_TEST(reason == "commit", count << " requests unschedulable for " << reason);
  }
  ActorHarness::wait_until(
      [&] {
        const std::lock_guard<std::mutex> lock(guard);
        return observer->held.empty();
      },
      "every placement finished", std::chrono::seconds(30));
  caf::anon_send_exit(client, caf::exit_reason::user_shutdown);
  for (const auto& [id, agent] : agents) {
    caf::anon_send_exit(agent, caf::exit_reason::user_shutdown);
  }
  const std::lock_guard<std::mutex> lock(guard);
  BOOST_TEST(observer->checks > 2 * total);
  BOOST_TEST(observer->violations == 0u);
  check_drf_shares(shares, kWeightedPool, Measure::OfHeld);
  BOOST_TEST(shard.stop() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
