// What the quota tests with racing schedulers share: tenants of a cohort, an observer that keeps
// a ledger of its own from the quota ledger's events and checks the limits after each, and the
// weighted DRF allocation computed apart from the code under test.
#pragma once

#include <caf/actor.hpp>
#include <caf/send.hpp>

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "actors/quota_actor.hpp"
#include "runtime/workload_client.hpp"
#include "tests/eventually.hpp"
#include "tests/policy_fixtures.hpp"

namespace unisched::testing {

inline constexpr const char* kGpu = "GPU";  // every GPU, whatever the profile calls it
inline constexpr int64_t kMilli = 1000;

struct Tenant {
  std::string queue;
  int64_t weight = 1;
  int64_t hard_gpus = 0;
  int64_t borrowing_gpus = -1;  // -1: no limit beyond the pool
};

inline v1::QuotaDefinition definition_of(const Tenant& tenant, const std::string& cohort) {
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
  std::set<std::string> waiting_queues;  // with work waiting at the ledger, as last told
  uint64_t checks = 0;
  uint64_t violations = 0;
  std::function<void()> after_event;

  void on_event(const actors::QuotaLedgerEvent& event) {
    waiting_queues = event.waiting_queues;
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

/// The GPUs each tenant held on average while every tenant had work waiting at the ledger (the
/// budget was contended, so weighted DRF decides who gets it), sampled after every event. Work
/// waiting only at the schedulers does not count: when deciding is slower than running (a
/// sanitizer build), the ledger admits whatever reaches it and the shares follow arrival order.
struct ContendedShares {
  explicit ContendedShares(std::vector<Tenant> of) : tenants(std::move(of)) {}

  std::vector<Tenant> tenants;
  std::map<std::string, double> sums;
  uint64_t samples = 0;

  void sample(const LimitObserver& observer) {
    for (const Tenant& tenant : tenants) {
      if (observer.waiting_queues.count(tenant.queue) == 0 ||
          observer.used.count(tenant.queue) == 0) {
        return;
      }
    }
    ++samples;
    for (const Tenant& tenant : tenants) {
      sums[tenant.queue] += static_cast<double>(observer.used.at(tenant.queue)) / kMilli;
    }
  }
  double average(const std::string& queue) const {
    return sums.at(queue) / static_cast<double>(samples);
  }
};

/// Weighted DRF by progressive filling for one resource: every tenant's share rises with its
/// weight until it reaches its limit or the pool is used up.
inline std::map<std::string, double> drf_allocation(const std::vector<Tenant>& tenants,
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

/// `replicas` replicas of one cpu and `gpus` A100s each, for `queue`.
inline model::SchedulingRequestSpec gpu_request(const std::string& queue, int gpus,
                                                bool gang = false, int replicas = 1) {
  auto spec =
      request("  replicas: " + std::to_string(replicas) +
              "\n  resources:\n    cpu: 1\n    accelerators:\n"
              "      - model: A100\n        count: " +
              std::to_string(gpus) + "\n" + (gang ? "  distribution:\n    gang: true\n" : ""));
  spec.queue = queue;
  return spec;
}

/// Five tenants of a cohort pooling 20 GPUs, weighted 1, 1, 2, 2 and 4; the heaviest may borrow
/// only 2 beyond its 4.
inline std::vector<Tenant> weighted_tenants() {
  return {{"t1", 1, 4}, {"t2", 1, 4}, {"t3", 2, 4}, {"t4", 2, 4}, {"t5", 4, 4, 2}};
}
inline constexpr int64_t kWeightedPool = 20;

/// Every tenant's share is within 5 points of its weighted DRF share of the pool. A share is the
/// tenant's average held GPUs over the pool (`Measure::OfPool`), or over what all tenants held
/// together (`Measure::OfHeld`: for real time, where GPUs are idle between a release and the next
/// take while messages travel, so the pool is never all held at once).
enum class Measure { OfPool, OfHeld };
inline void check_drf_shares(const ContendedShares& shares, int64_t pool_gpus, Measure measure) {
  BOOST_TEST_MESSAGE(shares.samples << " events found every tenant waiting at the ledger");
  BOOST_TEST_REQUIRE(shares.samples > 1'000u,
                     "the budget was contended too rarely to compare shares with DRF");
  const auto drf = drf_allocation(shares.tenants, pool_gpus);
  double held = 0;
  for (const Tenant& tenant : shares.tenants) {
    held += shares.average(tenant.queue);
  }
  BOOST_TEST_MESSAGE("held on average " << held << " of " << pool_gpus << " GPUs");
  const double whole = measure == Measure::OfPool ? static_cast<double>(pool_gpus) : held;
  for (const Tenant& tenant : shares.tenants) {
    const double observed = shares.average(tenant.queue) / whole;
    const double fair = drf.at(tenant.queue) / static_cast<double>(pool_gpus);
    BOOST_TEST_MESSAGE(tenant.queue << ": share " << observed << ", DRF " << fair);
    BOOST_TEST(std::abs(observed - fair) <= 0.05,
               tenant.queue << ": " << observed << " vs " << fair);
  }
}

/// Submits `per_tenant` one-GPU requests of each tenant, interleaved, to a workload client; each
/// runs for a time drawn from [shortest, longest] ms (scaled, so that deciding stays short beside
/// running on a slower build) by a seeded generator.
inline void submit_interleaved(const runtime::WorkloadClientActor& client,
                               const std::vector<Tenant>& tenants, int per_tenant, int64_t shortest,
                               int64_t longest) {
  std::mt19937_64 random(42);
  std::uniform_int_distribution<int64_t> runs_for(shortest, longest);
  for (int i = 0; i < per_tenant; ++i) {
    for (const Tenant& tenant : tenants) {
      caf::anon_send(client, atoms::submit_atom_v, tenant.queue + "-r" + std::to_string(i),
                     gpu_request(tenant.queue, 1),
                     static_cast<int64_t>(static_cast<double>(runs_for(random)) * wait_scale()));
    }
  }
}

}  // namespace unisched::testing
