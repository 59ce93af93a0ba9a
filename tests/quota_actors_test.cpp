// Quotas with real actors on a virtual clock: 4 racing schedulers and 5 tenants of a cohort
// submit 10,000 requests that run and finish; an observer with a ledger of its own checks after
// every take and release that no tenant passes its limit and the cohort its pool, and the shares
// held while every tenant waits are compared with the weighted DRF allocation this test computes
// itself. Also: borrowing and its return, and a gang that takes quota for all replicas or none.
#include <caf/event_based_actor.hpp>
#include <caf/send.hpp>

#include <boost/test/unit_test.hpp>

#include "runtime/workload_client.hpp"
#include "tests/quota_fairness.hpp"
#include "tests/scheduling_fleet.hpp"

using namespace unisched;
using namespace unisched::atoms;
using namespace unisched::testing;

namespace {

/// The scheduling fleet with a quota ledger, and a workload client that finishes placed work
/// after the time each request says.
struct QuotaFleet : testing::SchedulingFleet {
  runtime::WorkloadClientActor client;

  QuotaFleet(const std::vector<std::string>& ids, int scheduler_count,
             std::function<void(const actors::QuotaLedgerEvent&)> observer)
      : SchedulingFleet(
            ids, {scheduler_count, actors::CommitMode::NodeRevisions, true, std::move(observer)}) {
    client = runtime::spawn_workload_client(*harness.system, schedulers);
    for (const auto& [id, agent] : agents) {
      caf::anon_send(client, bind_atom_v, id, actors::AgentActor{agent});
    }
  }
  ~QuotaFleet() { caf::anon_send_exit(client, caf::exit_reason::user_shutdown); }

  void define(const Tenant& tenant, const std::string& cohort) {
    harness.ask<v1::QuotaStatus>(ledger, definition_of(tenant, cohort));
  }
  v1::WorkloadReport report() { return harness.ask<v1::WorkloadReport>(client, summary_atom_v); }
  v1::QuotaStatus status(const std::string& queue) {
    const auto list = harness.ask<v1::QuotaList>(ledger, quotas_atom_v);
    for (const auto& quota : list.quotas()) {
      if (quota.quota().queue() == queue) {
        return quota;
      }
    }
    BOOST_FAIL("no quota for " << queue);
    return {};
  }
};

int64_t used_gpus(const v1::QuotaStatus& status) {
  const auto found = status.used().find(kGpu);
  return found == status.used().end() ? 0 : found->second / kMilli;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(quota_actors)

BOOST_AUTO_TEST_CASE(racing_schedulers_never_pass_a_quota_and_share_by_weighted_drf) {
  const std::vector<Tenant> tenants = weighted_tenants();
  constexpr int kPerTenant = 2'000;  // 10,000 requests in all
  auto observer = std::make_shared<LimitObserver>();
  observer->pool_gpus = kWeightedPool;  // the two clusters hold 32 GPUs, so the quota binds
  for (const Tenant& tenant : tenants) {
    observer->tenants[tenant.queue] = tenant;
  }
  // Shares are sampled while every tenant still waits with at least 40 requests.
  ContendedShares shares(tenants);
  observer->after_event = [&] { shares.sample(*observer); };
  QuotaFleet fleet({"c1", "c2"}, 4, [observer](const auto& event) { observer->on_event(event); });
  for (const Tenant& tenant : tenants) {
    fleet.define(tenant, "lab");
  }
  submit_interleaved(fleet.client, tenants, kPerTenant, 20, 200);
  const uint64_t total = static_cast<uint64_t>(kPerTenant) * tenants.size();
  fleet.harness.run_until([&] { return fleet.report().placed() == total; }, "every request placed",
                          std::chrono::minutes(10), std::chrono::milliseconds(20));
  fleet.harness.run_until([&] { return observer->held.empty(); }, "every placement finished",
                          std::chrono::seconds(30));
  BOOST_TEST(observer->checks > 2 * total);
  BOOST_TEST(observer->violations == 0u);
  for (const Tenant& tenant : tenants) {
    BOOST_TEST(used_gpus(fleet.status(tenant.queue)) == 0);  // finished work gave it all back
  }
  uint64_t queued = 0;
  for (const auto& scheduler : fleet.schedulers) {
    queued += fleet.harness.ask<v1::SchedulerSummary>(scheduler, summary_atom_v).quota_queued();
  }
  BOOST_TEST(queued > total / 2);  // most requests did wait for quota
  // While everyone waited, the held GPUs matched the weighted DRF allocation.
  BOOST_TEST(drf_allocation(tenants, kWeightedPool).at("t5") == 6.0);  // its borrowing limit
  check_drf_shares(shares, kWeightedPool, Measure::OfPool);
}

BOOST_AUTO_TEST_CASE(idle_budget_is_borrowed_and_returns_as_borrowers_finish) {
  auto observer = std::make_shared<LimitObserver>();
  QuotaFleet fleet({"c1"}, 1, [observer](const auto& event) { observer->on_event(event); });
  fleet.define({"lender", 1, 4}, "lab");
  fleet.define({"borrower", 1, 4}, "lab");
  // The borrower takes all 8 while the lender is idle; the 8 GPUs run for 500 ms.
  for (int i = 0; i < 8; ++i) {
    caf::anon_send(fleet.client, submit_atom_v, "b" + std::to_string(i), gpu_request("borrower", 1),
                   int64_t{500});
  }
  fleet.harness.run_until([&] { return fleet.report().placed() == 8u; }, "borrower placed");
  BOOST_TEST(used_gpus(fleet.status("borrower")) == 8);
  BOOST_TEST(fleet.status("borrower").borrowed().at(kGpu) == 4 * kMilli);
  BOOST_TEST(fleet.status("lender").lent().at(kGpu) == 4 * kMilli);
  // The lender's own work waits for its budget to come back (no preemption), then runs.
  caf::anon_send(fleet.client, submit_atom_v, "l0", gpu_request("lender", 2), int64_t{10'000});
  fleet.harness.run();
  BOOST_TEST(fleet.status("lender").pending_requests() == 1u);
  BOOST_TEST(fleet.report().placed() == 8u);
  fleet.harness.run_until([&] { return fleet.report().placed() == 9u; }, "lender placed");
  BOOST_TEST(used_gpus(fleet.status("lender")) == 2);
  BOOST_TEST(observer->violations == 0u);
}

BOOST_AUTO_TEST_CASE(a_gang_takes_quota_for_every_replica_or_waits_whole) {
  auto observer = std::make_shared<LimitObserver>();
  QuotaFleet fleet({"c1", "c2"}, 2, [observer](const auto& event) { observer->on_event(event); });
  fleet.define({"team", 1, 8}, "");
  // Three replicas of 4 GPUs need 12: nothing is placed, nothing taken, it waits whole.
  caf::anon_send(fleet.client, submit_atom_v, "gang", gpu_request("team", 4, true, 3),
                 int64_t{60'000});
  fleet.harness.run();
  BOOST_TEST(used_gpus(fleet.status("team")) == 0);
  BOOST_TEST(fleet.status("team").pending_requests() == 1u);
  BOOST_TEST(fleet.status("team").pending().at(kGpu) == 12 * kMilli);
  BOOST_TEST(observer->held.empty());
  // The budget grows: the gang is admitted and placed whole.
  fleet.define({"team", 1, 12}, "");
  fleet.harness.run_until([&] { return fleet.report().placed() == 1u; }, "gang placed");
  BOOST_TEST(used_gpus(fleet.status("team")) == 12);
  BOOST_TEST(observer->held.size() == 3u);
  BOOST_TEST(observer->violations == 0u);
}

BOOST_AUTO_TEST_CASE(only_the_cluster_running_the_work_may_say_it_finished) {
  auto observer = std::make_shared<LimitObserver>();
  QuotaFleet fleet({"c1", "c2"}, 1, [observer](const auto& event) { observer->on_event(event); });
  fleet.define({"team", 1, 8}, "");
  caf::anon_send(fleet.client, submit_atom_v, "job", gpu_request("team", 2), int64_t{1'000});
  fleet.harness.run_until([&] { return fleet.report().placed() == 1u; }, "job placed");
  BOOST_TEST_REQUIRE(observer->held.size() == 1u);
  // A stranger tells the supervisor the work ended, as either cluster; the ledger hears it
  // from a cluster the placement is not on. None of it frees the quota.
  v1::FinishedPlacements forged;
  forged.add_placement_ids(observer->held.begin()->first);
  for (const char* cluster : {"c1", "c2"}) {
    forged.set_cluster_id(cluster);
    caf::anon_send(fleet.supervisor, forged);
  }
  forged.set_cluster_id("c3");
  caf::anon_send(fleet.ledger, forged);
  fleet.harness.run();
  BOOST_TEST(used_gpus(fleet.status("team")) == 2);
  BOOST_TEST(observer->held.size() == 1u);
  // Its own cluster's report, when the work ends, does.
  fleet.harness.run_until([&] { return observer->held.empty(); }, "the work finished");
  BOOST_TEST(used_gpus(fleet.status("team")) == 0);
}

BOOST_AUTO_TEST_CASE(leases_skip_the_ledger_far_from_the_limit_and_the_limit_still_holds) {
  // 4 schedulers race on one queue of 24 GPUs (the clusters hold 32): far from the limit they
  // take from leases, near it the leases are asked back, and exactly 24 run.
  auto observer = std::make_shared<LimitObserver>();
  observer->tenants["team"] = Tenant{"team", 1, 24};
  observer->pool_gpus = 24;
  QuotaFleet fleet({"c1", "c2"}, 4, [observer](const auto& event) { observer->on_event(event); });
  fleet.define({"team", 1, 24}, "");
  for (int i = 0; i < 40; ++i) {
    caf::anon_send(fleet.client, submit_atom_v, "r" + std::to_string(i), gpu_request("team", 1),
                   int64_t{600'000});
  }
  fleet.harness.run_until([&] { return fleet.report().placed() == 24u; }, "the budget placed");
  fleet.harness.advance(std::chrono::seconds(5));
  BOOST_TEST(fleet.report().placed() == 24u);
  BOOST_TEST(used_gpus(fleet.status("team")) == 24);
  BOOST_TEST(fleet.status("team").pending_requests() == 16u);
  BOOST_TEST(fleet.status("team").leased().empty());  // every lease came back for the waiting
  uint64_t lease_takes = 0;
  for (const auto& scheduler : fleet.schedulers) {
    lease_takes +=
        fleet.harness.ask<v1::SchedulerSummary>(scheduler, summary_atom_v).quota_lease_takes();
  }
  BOOST_TEST_MESSAGE("takes from leases: " << lease_takes);
  BOOST_TEST(lease_takes > 0u);
  BOOST_TEST(observer->violations == 0u);
  BOOST_TEST(observer->checks >= 24u);
}

BOOST_AUTO_TEST_SUITE_END()
