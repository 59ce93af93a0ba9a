// The quota accounting core without actors: hard limits checked and taken in one step, all or
// nothing for a gang, holds replaced in the same step, idempotent release, caps by region and
// model, borrowing and lending in a cohort, and the order dominant resource fairness serves
// queues in.
#include "cores/quota_ledger.hpp"

#include <boost/test/unit_test.hpp>

using namespace unisched::actors;

namespace {

constexpr const char* kGpu = "nvidia.com/gpu";

QuotaSpec quota(const std::string& queue, int64_t gpus, const std::string& cohort = {}) {
  QuotaSpec spec;
  spec.name = queue + "-quota";
  spec.queue = queue;
  spec.cohort = cohort;
  spec.hard = {{kGpu, gpus * 1000}, {"cpu", 64'000}};
  return spec;
}

QuotaCommit take(const std::string& queue,
                 const std::vector<std::pair<std::string, int64_t>>& gpus_by_placement) {
  QuotaCommit commit;
  commit.queue = queue;
  for (const auto& [id, gpus] : gpus_by_placement) {
    commit.placements[id].amounts = {{kGpu, gpus * 1000}, {"cpu", 1000}};
  }
  return commit;
}

bool accepted(QuotaLedger& state, const QuotaCommit& commit) {
  return !state.commit(commit).has_value();
}

std::string refused(QuotaLedger& state, const QuotaCommit& commit) {
  const auto refusal = state.commit(commit);
  return refusal ? refusal->reason : "";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(quota_ledger)

BOOST_AUTO_TEST_CASE(a_queue_never_goes_over_its_hard_limit) {
  QuotaLedger state;
  state.put(quota("team-a", 8));
  BOOST_TEST(accepted(state, take("team-a", {{"a/0", 4}, {"a/1", 4}})));
  const std::string over = refused(state, take("team-a", {{"b/0", 1}}));
  BOOST_TEST(over == "quota team-a-quota: nvidia.com/gpu: 9 would be used, 8 hard", over);
  BOOST_TEST(state.usage("team-a").used.at(kGpu) == 8000);
  // A queue without a quota is not limited; a resource the quota does not name neither.
  BOOST_TEST(!state.refusal("other", {{kGpu, 1000000}}).has_value());
  BOOST_TEST(!state.refusal("team-a", {{"amd.com/gpu", 5}}).has_value());
}

BOOST_AUTO_TEST_CASE(racing_takes_cannot_pass_a_limit_together) {
  QuotaLedger state;
  state.put(quota("team-a", 8));
  state.put(quota("team-b", 8));
  // Two schedulers decided on the same usage; each alone fits, both together do not.
  BOOST_TEST(accepted(state, take("team-a", {{"x/0", 6}})));
  BOOST_TEST(!refused(state, take("team-a", {{"y/0", 6}})).empty());
  // Another queue's take does not conflict with them.
  BOOST_TEST(accepted(state, take("team-b", {{"z/0", 6}})));
  BOOST_TEST(state.usage("team-a").used.at(kGpu) == 6000);
}

BOOST_AUTO_TEST_CASE(a_hold_turns_into_placements_in_one_step) {
  QuotaLedger state;
  state.put(quota("team-a", 8));
  BOOST_TEST(accepted(state, take("team-a", {{"r#admitted", 8}})));  // admitted: 8 held
  // Without the hold given back in the same step the placements would not fit; with it they do.
  BOOST_TEST(!refused(state, take("team-a", {{"r/0", 4}, {"r/1", 4}})).empty());
  QuotaCommit placements = take("team-a", {{"r/0", 4}, {"r/1", 4}});
  placements.replaces = {"r#admitted"};
  BOOST_TEST(accepted(state, placements));
  BOOST_TEST(!state.holds("r#admitted"));
  BOOST_TEST(state.usage("team-a").used.at(kGpu) == 8000);
}

BOOST_AUTO_TEST_CASE(caps_bound_a_region_and_a_model_inside_the_budget) {
  QuotaLedger state;
  QuotaSpec spec = quota("team-a", 64);
  spec.caps.push_back({"", "eu-west", "", "", {{kGpu, 16000}}});
  spec.caps.push_back({"", "", "", "A100", {{kGpu, 24000}}});
  state.put(spec);
  const auto at = [](const std::string& id, const std::string& region, const std::string& model,
                     int64_t gpus) {
    QuotaCommit commit = take("team-a", {{id, gpus}});
    commit.placements[id].region = region;
    commit.placements[id].model = model;
    return commit;
  };
  BOOST_TEST(accepted(state, at("a/0", "eu-west", "NVIDIA-H100-80GB", 16)));
  const std::string region = refused(state, at("b/0", "eu-west", "NVIDIA-H100-80GB", 1));
  BOOST_TEST(region ==
                 "quota team-a-quota: cap region=eu-west: nvidia.com/gpu: 17 would be "
                 "used, 16 hard",
             region);
  BOOST_TEST(accepted(state, at("c/0", "us-east", "NVIDIA-A100-SXM4-80GB", 24)));
  BOOST_TEST(refused(state, at("d/0", "us-east", "A100", 1)).find("cap model=A100") !=
             std::string::npos);
  BOOST_TEST(accepted(state, at("e/0", "us-east", "NVIDIA-H100-80GB", 8)));  // no cap matches
  BOOST_TEST(state.release({"a/0"}));
  BOOST_TEST(accepted(state, at("b/0", "eu-west", "NVIDIA-H100-80GB", 1)));
}

BOOST_AUTO_TEST_CASE(a_gang_takes_quota_for_all_or_nothing_and_release_is_idempotent) {
  QuotaLedger state;
  state.put(quota("team-a", 8));
  BOOST_TEST(!refused(state, take("team-a", {{"g/0", 4}, {"g/1", 4}, {"g/2", 4}})).empty());
  BOOST_TEST(state.usage("team-a").used.empty());  // nothing taken for the two that fit
  QuotaCommit gang = take("team-a", {{"g/0", 4}, {"g/1", 4}});
  gang.placements["g/0"].cluster = "c1";
  gang.placements["g/1"].cluster = "c2";
  BOOST_TEST(accepted(state, gang));
  BOOST_TEST(refused(state, take("team-a", {{"g/0", 0}})) == "placement g/0 already holds quota");
  BOOST_TEST(state.holds_on("g/0", "c1"));  // where each holds: only that cluster ends it
  BOOST_TEST(!state.holds_on("g/0", "c2"));
  BOOST_TEST(!state.holds_on("g/7", "c1"));
  const uint64_t before = state.revision();
  BOOST_TEST(state.release({"g/0"}));
  BOOST_TEST(!state.release({"g/0"}));  // a late second release gives nothing back twice
  BOOST_TEST(state.revision() == before + 1);
  BOOST_TEST(state.usage("team-a").used.at(kGpu) == 4000);
}

BOOST_AUTO_TEST_CASE(idle_budget_is_lent_within_a_cohort_up_to_the_limits) {
  QuotaLedger state;
  QuotaSpec a = quota("team-a", 8, "research");
  a.borrowing_limit = ResourceAmounts{{kGpu, 4000}};
  QuotaSpec b = quota("team-b", 8, "research");
  b.lending_limit = ResourceAmounts{{kGpu, 2000}};  // keeps 6 for itself whatever happens
  state.put(a);
  state.put(b);
  // team-a borrows team-b's lendable 2, not more.
  BOOST_TEST(accepted(state, take("team-a", {{"a/0", 10}})));
  BOOST_TEST(state.usage("team-a").borrowed.at(kGpu) == 2000);
  BOOST_TEST(state.usage("team-b").lent.at(kGpu) == 2000);
  const std::string more = refused(state, take("team-a", {{"a/1", 1}}));
  BOOST_TEST(more.find("cohort research has 0 to lend") != std::string::npos, more);
  // team-b still has its kept 6, but not the 2 it lent out.
  BOOST_TEST(accepted(state, take("team-b", {{"b/0", 6}})));
  BOOST_TEST(!refused(state, take("team-b", {{"b/1", 1}})).empty());
  // The borrower finishes: the lent budget returns to its owner.
  BOOST_TEST(state.release({"a/0"}));
  BOOST_TEST(state.usage("team-b").lent.empty());
  BOOST_TEST(accepted(state, take("team-b", {{"b/1", 2}})));
  // Borrowing stops at the borrowing limit even with the pool free.
  QuotaLedger roomy;
  QuotaSpec c = quota("team-c", 8, "big");
  c.borrowing_limit = ResourceAmounts{{kGpu, 1000}};
  roomy.put(c);
  roomy.put(quota("team-d", 100, "big"));
  BOOST_TEST(roomy.refusal("team-c", {{kGpu, 10000}}).value_or("").find("8 hard + 1 borrowable") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_member_whose_quota_does_not_name_a_resource_neither_lends_nor_borrows_it) {
  QuotaLedger state;
  QuotaSpec a = quota("team-a", 8, "lab");
  a.hard["memory"] = int64_t{4} << 40;  // 4Ti
  state.put(a);
  state.put(quota("team-b", 8, "lab"));  // no memory in its quota: not limited, not pooled
  QuotaCommit big = take("team-b", {{"b/0", 1}});
  big.placements["b/0"].amounts["memory"] = int64_t{3} << 40;
  BOOST_TEST(accepted(state, big));
  QuotaCommit mine = take("team-a", {{"a/0", 1}});
  mine.placements["a/0"].amounts["memory"] = int64_t{4} << 40;
  BOOST_TEST(accepted(state, mine));  // team-b's memory is not out of team-a's pool
  BOOST_TEST(state.usage("team-a").lent.count("memory") == 0u);
  BOOST_TEST(state.usage("team-b").borrowed.count("memory") == 0u);
}

BOOST_AUTO_TEST_CASE(a_cohort_whose_pooled_budget_passes_64_bits_still_places_its_requests) {
  // Each amount fits 64 bits and passes validation; two of them together do not (issue 66, item
  // 4): the pool wrapped negative and every request of the cohort waited with "0 to lend".
  QuotaLedger state;
  for (const std::string queue : {"team-a", "team-b"}) {
    QuotaSpec member = quota(queue, 8, "huge");
    member.hard["cpu"] = 9'000'000'000'000'000'000;  // 9000000000000000 cores
    member.hard["memory"] = int64_t{7} << 60;        // 7Ei
    state.put(member);
  }
  QuotaCommit first = take("team-a", {{"a/0", 1}});
  first.placements["a/0"].amounts["memory"] = int64_t{60} << 30;
  BOOST_TEST(refused(state, first).empty());
  // Borrowing past its own hard limit, from a pool that only 128 bits can hold.
  QuotaCommit borrowing = take("team-a", {{"a/1", 1}});
  borrowing.placements["a/1"].amounts["memory"] = int64_t{7} << 60;
  BOOST_TEST(refused(state, borrowing).empty());
  BOOST_TEST(state.usage("team-a").borrowed.at("memory") == int64_t{60} << 30);
  BOOST_TEST(state.usage("team-b").lent.at("memory") == int64_t{60} << 30);
  // A take that would wrap what the queue uses past 64 bits is refused, naming the true sum.
  const std::string over = refused(state, take("team-a", {{"a/2", 9'223'372'036'854'775}}));
  BOOST_TEST(over.find("9223372036854777 would be used") != std::string::npos, over);
  BOOST_TEST(state.weighted_share("team-a") > 0.0);
}

BOOST_AUTO_TEST_CASE(with_quotas_required_a_named_queue_waits_for_its_quota) {
  QuotaLedger state;
  BOOST_TEST(!state.refusal("team-z", {{kGpu, 1000}}).has_value());  // by default: unlimited
  state.set_queues_require_quota(true);
  const std::string waits = refused(state, take("team-z", {{"z/0", 1}}));
  BOOST_TEST(waits.find("queue team-z has no SchedulingQuota") == 0u, waits);
  BOOST_TEST(!state.refusal("", {{kGpu, 1000}}).has_value());  // work of no queue is not held
  state.put(quota("team-z", 2));
  BOOST_TEST(accepted(state, take("team-z", {{"z/0", 1}})));
}

BOOST_AUTO_TEST_CASE(dominant_resource_fairness_serves_the_least_served_first) {
  QuotaLedger state;
  QuotaSpec a = quota("team-a", 8);
  QuotaSpec b = quota("team-b", 8);
  b.weight = 2;
  state.put(a);
  state.put(b);
  state.put(quota("team-c", 8));
  BOOST_TEST(accepted(state, take("team-a", {{"a/0", 4}})));  // dominant share 1/2
  BOOST_TEST(accepted(state, take("team-b", {{"b/0", 6}})));  // 3/4, weighted 3/8
  BOOST_TEST(state.weighted_share("team-c") == 0.0);
  BOOST_TEST(state.weighted_share("team-b") == 0.375);
  BOOST_TEST(state.weighted_share("team-a") == 0.5);
}

BOOST_AUTO_TEST_SUITE_END()
