// The quota accounting core without actors: hard limits, compare-and-set on the revision, all or
// nothing for a gang, idempotent release, borrowing and lending in a cohort, and the order
// dominant resource fairness serves queues in.
#include "actors/quota_state.hpp"

#include <boost/test/unit_test.hpp>

using namespace unisched::actors;

namespace {

constexpr const char* kGpu = "nvidia.com/gpu";

QuotaSpec quota(const std::string& queue, int64_t gpus, const std::string& cohort = {}) {
  QuotaSpec spec;
  spec.name = queue + "-quota";
  spec.queue = queue;
  spec.cohort = cohort;
  spec.hard = {{kGpu, gpus}, {"cpu", 64'000}};
  return spec;
}

QuotaCommit take(const QuotaState& state, const std::string& queue,
                 const std::vector<std::pair<std::string, int64_t>>& gpus_by_placement) {
  QuotaCommit commit;
  commit.queue = queue;
  commit.revision = state.revision();
  for (const auto& [id, gpus] : gpus_by_placement) {
    commit.placements[id] = {{kGpu, gpus}, {"cpu", 1000}};
  }
  return commit;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(quota_state)

BOOST_AUTO_TEST_CASE(a_queue_never_goes_over_its_hard_limit) {
  QuotaState state;
  state.put(quota("team-a", 8));
  BOOST_TEST((state.commit(take(state, "team-a", {{"a/0", 4}, {"a/1", 4}})).status ==
              QuotaCommitStatus::Accepted));
  const auto over = state.commit(take(state, "team-a", {{"b/0", 1}}));
  BOOST_TEST((over.status == QuotaCommitStatus::OverQuota));
  BOOST_TEST(over.reason == "quota team-a-quota: nvidia.com/gpu: 9 would be used, 8 hard",
             over.reason);
  BOOST_TEST(state.usage("team-a").used.at(kGpu) == 8);
  // A queue without a quota is not limited; a resource the quota does not name neither.
  BOOST_TEST(!state.refusal("other", {{kGpu, 1000}}).has_value());
  BOOST_TEST(!state.refusal("team-a", {{"amd.com/gpu", 5}}).has_value());
}

BOOST_AUTO_TEST_CASE(racing_commits_cannot_pass_a_limit_together) {
  QuotaState state;
  state.put(quota("team-a", 8));
  // Two schedulers decided on the same revision; each alone fits, both together do not.
  const QuotaCommit first = take(state, "team-a", {{"x/0", 6}});
  const QuotaCommit second = take(state, "team-a", {{"y/0", 6}});
  BOOST_TEST((state.commit(first).status == QuotaCommitStatus::Accepted));
  BOOST_TEST((state.commit(second).status == QuotaCommitStatus::Conflict));
  // Decided again on the new revision, it no longer fits.
  BOOST_TEST(
      (state.commit(take(state, "team-a", {{"y/0", 6}})).status == QuotaCommitStatus::OverQuota));
}

BOOST_AUTO_TEST_CASE(a_gang_takes_quota_for_all_or_nothing_and_release_is_idempotent) {
  QuotaState state;
  state.put(quota("team-a", 8));
  BOOST_TEST((state.commit(take(state, "team-a", {{"g/0", 4}, {"g/1", 4}, {"g/2", 4}})).status ==
              QuotaCommitStatus::OverQuota));
  BOOST_TEST(state.usage("team-a").used.empty());  // nothing taken for the two that fit
  BOOST_TEST((state.commit(take(state, "team-a", {{"g/0", 4}, {"g/1", 4}})).status ==
              QuotaCommitStatus::Accepted));
  BOOST_TEST((state.commit(take(state, "team-a", {{"g/0", 0}})).status ==
              QuotaCommitStatus::OverQuota));  // an id already holding quota
  const uint64_t before = state.revision();
  BOOST_TEST(state.release({"g/0"}));
  BOOST_TEST(!state.release({"g/0"}));  // a late second release gives nothing back twice
  BOOST_TEST(state.revision() == before + 1);
  BOOST_TEST(state.usage("team-a").used.at(kGpu) == 4);
}

BOOST_AUTO_TEST_CASE(idle_budget_is_lent_within_a_cohort_up_to_the_limits) {
  QuotaState state;
  QuotaSpec a = quota("team-a", 8, "research");
  a.borrowing_limit = ResourceAmounts{{kGpu, 4}};
  QuotaSpec b = quota("team-b", 8, "research");
  b.lending_limit = ResourceAmounts{{kGpu, 2}};  // keeps 6 for itself whatever happens
  state.put(a);
  state.put(b);
  // team-a borrows team-b's lendable 2, not more.
  BOOST_TEST(
      (state.commit(take(state, "team-a", {{"a/0", 10}})).status == QuotaCommitStatus::Accepted));
  BOOST_TEST(state.usage("team-a").borrowed.at(kGpu) == 2);
  const auto more = state.commit(take(state, "team-a", {{"a/1", 1}}));
  BOOST_TEST((more.status == QuotaCommitStatus::OverQuota));
  BOOST_TEST(more.reason.find("cohort research has 0 to lend") != std::string::npos, more.reason);
  // team-b still has its kept 6, but not the 2 it lent out.
  BOOST_TEST(
      (state.commit(take(state, "team-b", {{"b/0", 6}})).status == QuotaCommitStatus::Accepted));
  BOOST_TEST(
      (state.commit(take(state, "team-b", {{"b/1", 1}})).status == QuotaCommitStatus::OverQuota));
  // The borrower finishes: the lent budget returns to its owner.
  BOOST_TEST(state.release({"a/0"}));
  BOOST_TEST(
      (state.commit(take(state, "team-b", {{"b/1", 2}})).status == QuotaCommitStatus::Accepted));
  // Borrowing stops at the borrowing limit even with the pool free.
  QuotaState roomy;
  QuotaSpec c = quota("team-c", 8, "big");
  c.borrowing_limit = ResourceAmounts{{kGpu, 1}};
  roomy.put(c);
  roomy.put(quota("team-d", 100, "big"));
  BOOST_TEST(roomy.refusal("team-c", {{kGpu, 10}}).value_or("").find("8 hard + 1 borrowable") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(dominant_resource_fairness_serves_the_least_served_first) {
  QuotaState state;
  QuotaSpec a = quota("team-a", 8);
  QuotaSpec b = quota("team-b", 8);
  b.weight = 2;
  state.put(a);
  state.put(b);
  state.put(quota("team-c", 8));
  state.commit(take(state, "team-a", {{"a/0", 4}}));  // dominant share 1/2
  state.commit(take(state, "team-b", {{"b/0", 6}}));  // 3/4, weighted 3/8
  BOOST_TEST((state.fair_order({"team-a", "team-b", "team-c"}) ==
              std::vector<std::string>{"team-c", "team-b", "team-a"}));
}

BOOST_AUTO_TEST_SUITE_END()
