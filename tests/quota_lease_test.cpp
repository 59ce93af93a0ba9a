// Quota leases without actors: a take far from the limits comes back with a lease (a slice of at
// most a quarter of the headroom, held like any placement), takes from it move budget from the
// lease to placements without a check that could fail, and the ledger asks for leases back as
// soon as work of the cohort waits or the quota changes. No limit can be passed through a lease.
#include <boost/test/unit_test.hpp>

#include "cores/quota_admission.hpp"

using namespace unisched::actors;

namespace {

constexpr const char* kGpu = "GPU";

QuotaSpec quota(const std::string& queue, int64_t gpus, const std::string& cohort = {}) {
  QuotaSpec spec;
  spec.name = queue;
  spec.queue = queue;
  spec.cohort = cohort;
  spec.hard = {{kGpu, gpus * 1000}};
  return spec;
}

QuotaTake take(const std::string& work, const std::string& queue, int64_t gpus) {
  QuotaTake out;
  out.work_id = work;
  out.commit.queue = queue;
  out.commit.placements[work + "/0"].amounts = {{kGpu, gpus * 1000}, {"cpu", 1000}};
  return out;
}

int64_t gpus_in(const ResourceAmounts& amounts) {
  const auto found = amounts.find(kGpu);
  return found == amounts.end() ? 0 : found->second / 1000;
}

struct Fixture {
  QuotaAdmission admission;

  QuotaEffects put(QuotaSpec spec) { return admission.put(std::move(spec)); }
  QuotaTakeResult submit(const QuotaTake& what, const std::string& holder = "s1") {
    return admission.take(what, holder);
  }
  QuotaUsage usage(const std::string& queue) const { return admission.ledger().usage(queue); }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(quota_lease)

BOOST_AUTO_TEST_CASE(a_lease_is_budget_held_and_takes_from_it_move_it_to_placements) {
  QuotaLedger state;
  state.put(quota("team", 8));
  BOOST_TEST(!state.lease("L", "team", {{kGpu, 9'000}}));  // more than the budget: nothing held
  BOOST_TEST(state.lease("L", "team", {{kGpu, 4'000}}));
  BOOST_TEST(gpus_in(state.usage("team").leased) == 4);
  BOOST_TEST(gpus_in(state.usage("team").used) == 0);              // shown apart from placements
  BOOST_TEST(state.refusal("team", {{kGpu, 5'000}}).has_value());  // the lease counts as held

  QuotaCommit two;
  two.queue = "team";
  two.placements["a/0"].amounts = {{kGpu, 2'000}, {"cpu", 500}};  // cpu: not limited, not leased
  BOOST_TEST(state.take_from_lease("L", two));
  BOOST_TEST(gpus_in(state.usage("team").leased) == 2);
  BOOST_TEST(gpus_in(state.usage("team").used) == 2);

  QuotaCommit three = two;
  three.placements.clear();
  three.placements["b/0"].amounts = {{kGpu, 3'000}};
  BOOST_TEST(!state.take_from_lease("L", three));  // 2 left: changes nothing
  QuotaCommit elsewhere = two;
  elsewhere.queue = "other";
  elsewhere.placements = {{"c/0", {{{kGpu, 1'000}}, "", "", "", ""}}};
  BOOST_TEST(!state.take_from_lease("L", elsewhere));  // another queue's lease: no
  BOOST_TEST(!state.take_from_lease("a/0", two));      // a placement is no lease
  BOOST_TEST(gpus_in(state.usage("team").leased) == 2);

  BOOST_TEST(state.release({"L"}));  // what is left of it returns to the budget
  BOOST_TEST(state.usage("team").leased.empty());
  BOOST_TEST(gpus_in(state.usage("team").used) == 2);
  BOOST_TEST(!state.refusal("team", {{kGpu, 6'000}}).has_value());
}

BOOST_AUTO_TEST_CASE(a_take_far_from_the_limits_comes_with_a_lease_of_at_most_a_quarter) {
  Fixture f;
  f.put(quota("team", 100));
  const QuotaTakeResult first = f.submit(take("r1", "team", 1));
  BOOST_TEST_REQUIRE(first.taken);
  BOOST_TEST_REQUIRE(first.lease.has_value());
  BOOST_TEST(gpus_in(first.lease->amounts) == 16);      // 16 more such takes; 64 of 99 fit
  BOOST_TEST(first.lease->amounts.count("cpu") == 0u);  // only what the quota limits
  BOOST_TEST(!f.submit(take("r2", "team", 1)).lease.has_value());  // one per scheduler and queue
  BOOST_TEST(f.submit(take("r3", "team", 1), "s2").lease.has_value());
  // Nearer the limit the slices shrink, and at the end there are none.
  Fixture near;
  near.put(quota("team", 10));
  const QuotaTakeResult small = near.submit(take("r1", "team", 1));
  BOOST_TEST_REQUIRE(small.lease.has_value());
  BOOST_TEST(gpus_in(small.lease->amounts) == 2);  // 4 x 2 <= 9 left; 4 x 4 is not
  BOOST_TEST(!near.submit(take("r2", "team", 6), "s2").lease.has_value());
}

BOOST_AUTO_TEST_CASE(no_lease_where_a_cap_applies_or_work_waits) {
  Fixture f;
  QuotaSpec capped = quota("capped", 100);
  capped.caps.push_back({"c1", "", "", "", {{kGpu, 10'000}}});
  f.put(capped);
  BOOST_TEST(!f.submit(take("r1", "capped", 1)).lease.has_value());
  f.put(quota("a", 4, "lab"));
  f.put(quota("b", 4, "lab"));
  BOOST_TEST(!f.submit(take("big", "a", 9)).taken);  // more than the pool: waits in lab
  BOOST_TEST(!f.submit(take("small", "b", 0)).lease.has_value());
}

BOOST_AUTO_TEST_CASE(leases_are_asked_back_when_work_waits_and_held_until_given_back) {
  Fixture f;
  f.put(quota("a", 32, "lab"));
  f.put(quota("b", 32, "lab"));
  const auto granted = f.submit(take("a1", "a", 1));
  const auto& lease = granted.lease;
  BOOST_TEST_REQUIRE(lease.has_value());
  BOOST_TEST(granted.effects.revocations.empty());
  // b takes what is left beside the lease; then b's next take must wait: a's lease is asked back.
  const int64_t left = 64 - 1 - gpus_in(lease->amounts);
  BOOST_TEST(f.submit(take("b1", "b", left), "s2").taken);
  const auto waits = f.submit(take("b2", "b", 4), "s2");
  BOOST_TEST(!waits.taken);
  const auto& revocations = waits.effects.revocations;
  BOOST_TEST_REQUIRE(revocations.size() == 1u);
  BOOST_TEST(revocations[0].holder == "s1");
  BOOST_TEST(revocations[0].lease_id == lease->id);
  const auto behind = f.submit(take("b3", "b", 4), "s2");  // more work waits in the cohort...
  BOOST_TEST(!behind.taken);
  BOOST_TEST(behind.effects.revocations.empty());  // ...and the lease is asked back once
  // A take from the lease sent before the holder heard still finds its budget...
  BOOST_TEST(!f.admission.use_lease(lease->id, take("a2", "a", 2)).has_value());
  // ...and what is left comes back when the holder gives it back, for the waiting work: b2
  // fits in the lease's 6 GPUs left, b3 behind it does not.
  BOOST_TEST(f.admission.release({lease->id}).admitted == std::vector<std::string>{"b2"});
  BOOST_TEST(gpus_in(f.usage("a").used) == 3);
}

BOOST_AUTO_TEST_CASE(a_changed_quota_or_a_gone_holder_ends_its_leases) {
  Fixture f;
  f.put(quota("team", 100));
  const auto lease = f.submit(take("r1", "team", 1)).lease;
  BOOST_TEST_REQUIRE(lease.has_value());
  const auto revocations = f.put(quota("team", 50)).revocations;
  BOOST_TEST_REQUIRE(revocations.size() == 1u);
  BOOST_TEST(revocations[0].lease_id == lease->id);
  BOOST_TEST(f.admission.holder_gone("s1").admitted.empty());
  BOOST_TEST(f.usage("team").leased.empty());
  BOOST_TEST(gpus_in(f.usage("team").used) == 1);
  BOOST_TEST(f.submit(take("r2", "team", 1)).lease.has_value());  // a new one may be granted
}

BOOST_AUTO_TEST_CASE(a_take_the_lease_cannot_cover_is_still_counted) {
  Fixture f;
  f.put(quota("team", 10));
  const auto lease = f.submit(take("r1", "team", 1)).lease;
  BOOST_TEST_REQUIRE(lease.has_value());
  // A holder that miscounted: its work runs, so it is held rather than lost, and said so.
  const auto problem = f.admission.use_lease(lease->id, take("r2", "team", 8));
  BOOST_TEST_REQUIRE(problem.has_value());
  BOOST_TEST(problem->find("held over its queue's limits") != std::string::npos, *problem);
  BOOST_TEST(gpus_in(f.usage("team").used) == 9);
}

BOOST_AUTO_TEST_SUITE_END()
