// Quotas with real actors on a virtual clock: 4 racing schedulers and 5 tenants of a cohort
// submit 10,000 requests that run and finish; an observer with a ledger of its own checks after
// every take and release that no tenant passes its limit and the cohort its pool, and the shares
// held while every tenant waits are compared with the weighted DRF allocation this test computes
// itself. Also: borrowing and its return, and a gang that takes quota for all replicas or none.
#include <caf/event_based_actor.hpp>
#include <caf/send.hpp>

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <random>

#include "runtime/workload_client.hpp"
#include "tests/policy_fixtures.hpp"
#include "tests/scheduling_fleet.hpp"

using namespace unisched;
using namespace unisched::atoms;

namespace {

constexpr const char* kGpu = "GPU";  // every GPU, whatever the profile calls it
constexpr int64_t kMilli = 1000;

struct Tenant {
  std::string queue;
  int64_t weight = 1;
  int64_t hard_gpus = 0;
  int64_t borrowing_gpus = -1;  // -1: no limit beyond the pool
};

v1::QuotaDefinition definition_of(const Tenant& tenant, const std::string& cohort) {
  v1::QuotaDefinition out;
  out.set_name(tenant.queue + "-quota");
  out.set_queue(tenant.queue);
  out.set_cohort(cohort);
  out.set_weight(tenant.weight);
  (*out.mutable_hard())[kGpu] = tenant.hard_gpus * kMilli;
  if (tenant.borrowing_gpus >= 0) {
    out.set_has_borrowing_limit(true);
    (*out.mutable_borrowing_limit())[kGpu] = tenant.borrowing_gpus * kMilli;
  }
  return out;
}

/// The observer's own ledger of GPUs held, by queue and placement, built only from the events.
struct LimitObserver {
  std::map<std::string, Tenant> tenants;
  int64_t pool_gpus = 0;
  std::map<std::string, std::pair<std::string, int64_t>> held;  // id -> (queue, milli-GPUs)
  std::map<std::string, int64_t> used;                          // queue -> milli-GPUs
  std::map<std::string, int64_t> taken_requests;                // queue -> takes
  uint64_t checks = 0;
  uint64_t violations = 0;
  std::function<void()> after_event;

  void on_event(const actors::QuotaLedgerEvent& event) {
    for (const auto& placement : event.taken) {
      const auto gpus = placement.amounts().find(kGpu);
      const int64_t milli = gpus == placement.amounts().end() ? 0 : gpus->second;
      violations += held.count(placement.id());  // a placement takes quota once
      held[placement.id()] = {event.queue, milli};
      used[event.queue] += milli;
    }
    if (!event.taken.empty()) {
      ++taken_requests[event.queue];
    }
    for (const std::string& id : event.released) {
      if (const auto found = held.find(id); found != held.end()) {
        used[found->second.first] -= found->second.second;
        held.erase(found);
      }
    }
    check();
    if (after_event) {
      after_event();
    }
  }

  void check() {
    ++checks;
    int64_t total = 0;
    for (const auto& [queue, tenant] : tenants) {
      const int64_t limit =
          tenant.borrowing_gpus < 0 ? pool_gpus : tenant.hard_gpus + tenant.borrowing_gpus;
      violations += used[queue] > limit * kMilli ? 1 : 0;
      total += used[queue];
    }
    violations += total > pool_gpus * kMilli ? 1 : 0;
  }
};

/// Weighted DRF by progressive filling for one resource: every tenant's share rises with its
/// weight until it reaches its limit or the pool is used up.
std::map<std::string, double> drf_allocation(const std::vector<Tenant>& tenants,
                                             int64_t pool_gpus) {
  std::map<std::string, double> out;
  std::vector<const Tenant*> open;
  for (const Tenant& tenant : tenants) {
    open.push_back(&tenant);
  }
  double left = static_cast<double>(pool_gpus);
  while (!open.empty() && left > 1e-9) {
    double weights = 0;
    for (const Tenant* tenant : open) {
      weights += static_cast<double>(tenant->weight);
    }
    // The level at which the first open tenant reaches its limit, or the pool runs out.
    double level = left / weights;
    for (const Tenant* tenant : open) {
      if (tenant->borrowing_gpus >= 0) {
        const double room =
            static_cast<double>(tenant->hard_gpus + tenant->borrowing_gpus) - out[tenant->queue];
        level = std::min(level, room / static_cast<double>(tenant->weight));
      }
    }
    std::vector<const Tenant*> still_open;
    for (const Tenant* tenant : open) {
      const double add = level * static_cast<double>(tenant->weight);
      out[tenant->queue] += add;
      left -= add;
      const bool full = tenant->borrowing_gpus >= 0 &&
                        out[tenant->queue] >=
                            static_cast<double>(tenant->hard_gpus + tenant->borrowing_gpus) - 1e-9;
      if (!full) {
        still_open.push_back(tenant);
      }
    }
    open = std::move(still_open);
  }
  return out;
}

/// The scheduling fleet with a quota ledger, and a workload client that finishes placed work
/// after the time each request says.
struct QuotaFleet : testing::SchedulingFleet {
  caf::actor client;

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

model::SchedulingRequestSpec gpu_request(const std::string& queue, int gpus, bool gang = false,
                                         int replicas = 1) {
  auto spec = testing::request("  replicas: " + std::to_string(replicas) +
                               "\n  resources:\n    cpu: 1\n    accelerators:\n"
                               "      - model: A100\n        count: " +
                               std::to_string(gpus) + "\n" +
                               (gang ? "  distribution:\n    gang: true\n" : ""));
  spec.queue = queue;
  return spec;
}

int64_t used_gpus(const v1::QuotaStatus& status) {
  const auto found = status.used().find(kGpu);
  return found == status.used().end() ? 0 : found->second / kMilli;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(quota_actors)

BOOST_AUTO_TEST_CASE(racing_schedulers_never_pass_a_quota_and_share_by_weighted_drf) {
  const std::vector<Tenant> tenants = {
      {"t1", 1, 4}, {"t2", 1, 4}, {"t3", 2, 4}, {"t4", 2, 4}, {"t5", 4, 4, 2}};
  constexpr int64_t kPool = 20;       // GPUs: the two clusters hold 32, so the quota binds
  constexpr int kPerTenant = 2'000;   // 10,000 requests in all
  constexpr int kBacklogMargin = 40;  // shares are sampled while every tenant waits this many
  auto observer = std::make_shared<LimitObserver>();
  observer->pool_gpus = kPool;
  std::map<std::string, double> share_sum;
  uint64_t samples = 0;
  observer->after_event = [&] {
    for (const Tenant& tenant : tenants) {
      if (observer->taken_requests[tenant.queue] > kPerTenant - kBacklogMargin) {
        return;  // someone no longer waits: the shares are not all contended
      }
    }
    if (observer->taken_requests.size() < tenants.size()) {
      return;
    }
    ++samples;
    for (const Tenant& tenant : tenants) {
      share_sum[tenant.queue] += static_cast<double>(observer->used[tenant.queue]) / kMilli;
    }
  };
  for (const Tenant& tenant : tenants) {
    observer->tenants[tenant.queue] = tenant;
  }
  QuotaFleet fleet({"c1", "c2"}, 4, [observer](const auto& event) { observer->on_event(event); });
  for (const Tenant& tenant : tenants) {
    fleet.define(tenant, "lab");
  }
  std::mt19937_64 random(42);
  std::uniform_int_distribution<int64_t> runs_for(20, 200);
  for (int i = 0; i < kPerTenant; ++i) {
    for (const Tenant& tenant : tenants) {
      caf::anon_send(fleet.client, submit_atom_v, tenant.queue + "-r" + std::to_string(i),
                     gpu_request(tenant.queue, 1), runs_for(random));
    }
  }
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
  BOOST_TEST_REQUIRE(samples > 1'000u);
  const auto drf = drf_allocation(tenants, kPool);
  BOOST_TEST(drf.at("t5") == 6.0);  // capped by its borrowing limit; the rest by weight
  for (const Tenant& tenant : tenants) {
    const double observed = share_sum[tenant.queue] / static_cast<double>(samples);
    BOOST_TEST_MESSAGE(tenant.queue << ": " << observed << " GPUs held on average, DRF "
                                    << drf.at(tenant.queue));
    BOOST_TEST(std::abs(observed - drf.at(tenant.queue)) / kPool <= 0.05,
               tenant.queue << ": " << observed << " vs " << drf.at(tenant.queue));
  }
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

BOOST_AUTO_TEST_SUITE_END()
