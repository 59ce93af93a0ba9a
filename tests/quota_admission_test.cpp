// Quota admission without actors: work over its budget waits with a reason and is admitted when
// budget returns, holding it until its take replaces the hold; waiting work of a cohort is served
// by weighted dominant resource fairness, never overtaken, and a large request is not starved.
#include "cores/quota_admission.hpp"

#include <boost/test/unit_test.hpp>

using namespace unisched::actors;

namespace {

constexpr const char* kGpu = "nvidia.com/gpu";

QuotaSpec quota(const std::string& queue, int64_t gpus, const std::string& cohort = {},
                int64_t weight = 1) {
  QuotaSpec spec;
  spec.name = queue;
  spec.queue = queue;
  spec.cohort = cohort;
  spec.weight = weight;
  spec.hard = {{kGpu, gpus * 1000}};
  return spec;
}

QuotaTake take(const std::string& work, const std::string& queue, int64_t gpus,
               int64_t priority = 0) {
  QuotaTake out;
  out.work_id = work;
  out.priority = priority;
  out.commit.queue = queue;
  out.commit.placements[work + "/0"].amounts = {{kGpu, gpus * 1000}};
  return out;
}

struct Fixture {
  QuotaAdmission admission;

  void put(QuotaSpec spec) { admission.put(std::move(spec)); }
  QuotaTakeResult submit(const QuotaTake& what) { return admission.take(what); }
  /// The work the release admits, in admission order.
  std::vector<std::string> release(const std::vector<std::string>& ids) {
    return admission.release(ids).admitted;
  }
  int64_t used(const std::string& queue) const {
    const auto usage = admission.ledger().usage(queue);
    return usage.used.count(kGpu) > 0 ? usage.used.at(kGpu) : 0;
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(quota_admission)

BOOST_AUTO_TEST_CASE(work_over_budget_waits_and_is_admitted_when_budget_returns) {
  Fixture f;
  f.put(quota("team-a", 8));
  BOOST_TEST(f.submit(take("r1", "team-a", 6)).taken);
  const QuotaTakeResult waits = f.submit(take("r2", "team-a", 4));
  BOOST_TEST(!waits.taken);
  BOOST_TEST(waits.reason == "quota team-a: nvidia.com/gpu: 10 would be used, 8 hard",
             waits.reason);
  BOOST_TEST(f.admission.line().pending("team-a").requests == 1u);
  BOOST_TEST(f.admission.line().pending("team-a").demand.at(kGpu) == 4000);
  BOOST_TEST(f.release({"unknown/0"}).empty());
  BOOST_TEST((f.release({"r1/0"}) == std::vector<std::string>{"r2"}));
  // Admitted: its demand is held, so nobody else takes it while its scheduler decides.
  BOOST_TEST(f.used("team-a") == 4000);
  BOOST_TEST(!f.submit(take("r3", "team-a", 6)).taken);
  // Its take replaces the hold: 4 used, not 8.
  BOOST_TEST(f.submit(take("r2", "team-a", 4)).taken);
  BOOST_TEST(f.used("team-a") == 4000);
  BOOST_TEST(!f.admission.ledger().holds(QuotaAdmission::hold_id("r2")));
}

BOOST_AUTO_TEST_CASE(waiting_work_is_served_by_weighted_dominant_share) {
  Fixture f;
  f.put(quota("team-a", 4, "lab", 1));
  f.put(quota("team-b", 4, "lab", 3));
  // team-a borrows everything; then both queue work.
  for (int i = 0; i < 8; ++i) {
    BOOST_TEST(f.submit(take("a" + std::to_string(i), "team-a", 1)).taken);
  }
  BOOST_TEST(!f.submit(take("a8", "team-a", 1)).taken);
  BOOST_TEST(!f.submit(take("b0", "team-b", 1)).taken);
  BOOST_TEST(!f.submit(take("b1", "team-b", 1)).taken);
  // Freed budget goes to team-b (share 0) before team-a (share 8/8), arrival order aside.
  BOOST_TEST((f.release({"a0/0"}) == std::vector<std::string>{"b0"}));
  BOOST_TEST((f.release({"a1/0"}) == std::vector<std::string>{"b1"}));
  BOOST_TEST((f.release({"a2/0"}) == std::vector<std::string>{"a8"}));
}

BOOST_AUTO_TEST_CASE(new_work_queues_behind_waiting_work_of_its_cohort) {
  Fixture f;
  f.put(quota("team-a", 2, "lab"));
  f.put(quota("team-b", 2, "lab"));
  BOOST_TEST(f.submit(take("a0", "team-a", 4)).taken);
  BOOST_TEST(!f.submit(take("b0", "team-b", 2)).taken);
  BOOST_TEST(f.release({"a0/0"}).size() == 1u);  // b0, now that all 4 are free
  BOOST_TEST(f.submit(take("b0", "team-b", 2)).taken);
  f.put(quota("team-c", 2, "lab", 4));
  // team-c (weighted share 6/6/4 with its work) waits for 6 of the pool's 4 free; team-b
  // (3/6 with its work) may not overtake it.
  BOOST_TEST(!f.submit(take("c0", "team-c", 6)).taken);
  const QuotaTakeResult small = f.submit(take("b1", "team-b", 1));
  BOOST_TEST(!small.taken);
  BOOST_TEST(small.reason == "waiting behind earlier work of cohort lab", small.reason);
  // Budget back: c0 keeps its place (b1's queue holds no less than c0's), so it goes first.
  BOOST_TEST((f.release({"b0/0"}) == std::vector<std::string>{"c0"}));
  BOOST_TEST(f.submit(take("c0", "team-c", 6)).taken);
}

BOOST_AUTO_TEST_CASE(a_large_request_is_not_starved_by_small_ones) {
  Fixture f;
  f.put(quota("team-a", 4, "lab"));
  f.put(quota("team-b", 4, "lab"));
  for (int i = 0; i < 8; ++i) {
    BOOST_TEST(f.submit(take("b" + std::to_string(i), "team-b", 1)).taken);
  }
  BOOST_TEST(!f.submit(take("big", "team-a", 4)).taken);    // least served: first in line
  BOOST_TEST(!f.submit(take("small", "team-b", 1)).taken);  // behind it
  // Single GPUs come back: none goes to `small` while `big` waits for four.
  for (int i = 0; i < 3; ++i) {
    BOOST_TEST(f.release({"b" + std::to_string(i) + "/0"}).empty());
  }
  BOOST_TEST((f.release({"b3/0"}) == std::vector<std::string>{"big"}));
}

BOOST_AUTO_TEST_CASE(withdrawn_work_gives_its_hold_back) {
  Fixture f;
  f.put(quota("team-a", 2));
  BOOST_TEST(f.submit(take("r1", "team-a", 2)).taken);
  BOOST_TEST(!f.submit(take("r2", "team-a", 2)).taken);
  BOOST_TEST(!f.submit(take("r3", "team-a", 2, /*priority=*/5)).taken);
  BOOST_TEST((f.release({"r1/0"}) == std::vector<std::string>{"r3"}));  // priority first
  // Its scheduler gave up on it: its hold goes to the next in line.
  BOOST_TEST((f.admission.withdraw("r3").admitted == std::vector<std::string>{"r2"}));
  BOOST_TEST(f.used("team-a") == 2000);
}

BOOST_AUTO_TEST_SUITE_END()
