// Trace replay through the real agents, ClusterActors and SchedulerActor, on a slice of the
// shared Alibaba GPU trace; and the direct replay, which must decide exactly as they do.
#include "runtime/replay.hpp"
#include "runtime/replay_sweep.hpp"

#include <boost/test/unit_test.hpp>

#include <map>
#include <numeric>

#include "policy/trace_policies.hpp"
#include "tests/shared_data.hpp"

using namespace unisched;

namespace {

const testing::SharedFileAvailable kTrace{"data/alibaba-gpu-2023/openb_pod_list_default.csv"};

/// The first `nodes` GPU nodes and `pods` pods of the trace.
runtime::ReplayOptions slice(size_t nodes, size_t pods) {
  const std::string dir = testing::shared_path("data/alibaba-gpu-2023").string() + "/";
  auto node_list = adapters::read_trace_nodes(dir + "openb_node_list_gpu_node.csv").rows;
  auto pod_list = adapters::read_trace_pods(dir + "openb_pod_list_default.csv").rows;
  node_list.resize(std::min(nodes, node_list.size()));
  pod_list.resize(std::min(pods, pod_list.size()));
  runtime::ReplayOptions options;
  options.nodes = std::move(node_list);
  options.pods = std::move(pod_list);
  return options;
}

/// What every replay must hold to, whatever its policy.
void check_invariants(const runtime::ReplayReport& report) {
  // No over-commit seen, no decision lost.
  BOOST_TEST_REQUIRE(report.problems.empty(),
                     (report.problems.empty() ? std::string() : report.problems.front()));
  // What the placements took is exactly what the ClusterActors' views hold.
  BOOST_TEST(report.allocated_milli == report.view_allocated_milli);
  BOOST_TEST(report.allocated_milli <= report.capacity_milli);
  const uint64_t failed =
      std::accumulate(report.failed.begin(), report.failed.end(), uint64_t{0},
                      [](uint64_t sum, const auto& entry) { return sum + entry.second; });
  BOOST_TEST(report.placed + failed == report.pods);
  double previous = 0;
  for (const auto& [load, allocation] : report.allocation) {
    BOOST_TEST(allocation <= load + 0.5);  // never more allocated than arrived
    BOOST_TEST(allocation >=
               previous - 1e-9);  // nothing leaves (means of equal sums may differ in the last bit)
    previous = allocation;
    BOOST_TEST(report.fragmentation.at(load) >= 0);
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(replay)

BOOST_AUTO_TEST_CASE(a_slice_of_the_trace_fills_one_cluster_without_over_commit,
                     *boost::unit_test::precondition(kTrace)) {
  auto options = slice(60, 500);
  const auto report = runtime::replay(options, [](size_t, size_t) {});
  check_invariants(report);
  BOOST_TEST(report.pods > 500u);  // copies arrived up to 1.3 x capacity
  BOOST_TEST(report.allocation.count(100) == 1u);
  BOOST_TEST(report.allocation.at(100) > 50.0);
  BOOST_TEST(!report.failed.empty());  // at 130% some pods must fail
}

BOOST_AUTO_TEST_CASE(split_into_clusters_by_round_robin_and_by_model,
                     *boost::unit_test::precondition(kTrace)) {
  for (const auto partition :
       {runtime::TracePartition::RoundRobin, runtime::TracePartition::Model}) {
    auto options = slice(60, 300);
    options.clusters = 3;
    options.partition = partition;
    options.policy = "spread";
    check_invariants(runtime::replay(options, [](size_t, size_t) {}));
  }
}

BOOST_AUTO_TEST_CASE(the_same_seed_gives_the_same_replay, *boost::unit_test::precondition(kTrace)) {
  auto options = slice(40, 200);
  size_t progress_calls = 0;
  const auto first = runtime::replay(options, [&](size_t, size_t) { ++progress_calls; });
  const auto second = runtime::replay(options, [](size_t, size_t) {});
  BOOST_TEST(first.placed == second.placed);
  BOOST_TEST(first.allocation == second.allocation);
  BOOST_TEST(progress_calls >= 1u);  // at least the last pod is reported
}

BOOST_AUTO_TEST_CASE(best_fit_and_fgd_allocate_more_than_random,
                     *boost::unit_test::precondition(kTrace)) {
  std::map<std::string, double> at_full_load;
  for (const char* policy : {"bestfit", "fgd", "random"}) {
    auto options = slice(80, 800);
    options.policy = policy;
    const auto report = runtime::replay(options, [](size_t, size_t) {});
    check_invariants(report);
    at_full_load[policy] = report.allocation.at(130);
  }
  BOOST_TEST(at_full_load["bestfit"] > at_full_load["random"]);
  BOOST_TEST(at_full_load["fgd"] > at_full_load["random"]);
}

BOOST_AUTO_TEST_CASE(every_policy_of_the_paper_replays_within_the_invariants,
                     *boost::unit_test::precondition(kTrace)) {
  for (const std::string& policy : policy::trace_policy_names()) {
    auto options = slice(40, 200);
    options.policy = policy;
    BOOST_TEST_CONTEXT(policy) {
      check_invariants(runtime::replay(options, [](size_t, size_t) {}));
    }
  }
  auto options = slice(10, 20);
  options.policy = "tetris";
  const auto refused = runtime::replay(options, [](size_t, size_t) {});
  BOOST_TEST_REQUIRE(refused.problems.size() == 1u);
  BOOST_TEST(refused.problems.front().find("fgd-packed") != std::string::npos);
}

// --direct runs the same decisions straight through the policy: every figure equal, for every
// policy of the paper, unisched's own and a sampling preset, in one cluster and split in three.
BOOST_AUTO_TEST_CASE(the_direct_replay_decides_exactly_as_the_actors,
                     *boost::unit_test::precondition(kTrace)) {
  std::vector<std::string> policies = policy::trace_policy_names();
  policies.push_back("balanced");
  for (const int clusters : {1, 3}) {
    for (const std::string& policy : policies) {
      auto options = slice(60, 400);
      options.policy = policy;
      options.clusters = clusters;
      options.partition = runtime::TracePartition::RoundRobin;
      options.seed = 45;
      const auto through_actors = runtime::replay(options, [](size_t, size_t) {});
      options.direct = true;
      const auto direct = runtime::replay(options, [](size_t, size_t) {});
      BOOST_TEST_CONTEXT(policy << " in " << clusters << " cluster(s)") {
        check_invariants(direct);
        BOOST_TEST(direct.pods == through_actors.pods);
        BOOST_TEST(direct.placed == through_actors.placed);
        BOOST_TEST(direct.allocated_milli == through_actors.allocated_milli);
        BOOST_TEST(direct.view_allocated_milli == through_actors.view_allocated_milli);
        BOOST_TEST(direct.allocation == through_actors.allocation);
        BOOST_TEST(direct.fragmentation == through_actors.fragmentation);
        BOOST_TEST(direct.failed == through_actors.failed);
      }
    }
  }
}

// A sweep runs every policy with every seed (on threads) exactly as one replay would, and pairs
// each policy with the baseline seed by seed.
BOOST_AUTO_TEST_CASE(a_sweep_replays_each_pair_as_alone_and_pairs_them_by_seed,
                     *boost::unit_test::precondition(kTrace)) {
  runtime::SweepOptions sweep;
  sweep.base = slice(60, 500);
  sweep.policies = {"random", "bestfit"};
  sweep.seeds = {42, 43, 44};
  sweep.jobs = 2;
  size_t reported = 0;
  const auto runs = runtime::sweep(sweep, [&](size_t done, size_t total) {
    BOOST_TEST(done == ++reported);
    BOOST_TEST(total == 6u);
  });
  BOOST_TEST_REQUIRE(runs.size() == 6u);
  auto alone = sweep.base;
  alone.policy = "bestfit";
  alone.seed = 44;
  alone.direct = true;
  const auto one = runtime::replay(alone, [](size_t, size_t) {});
  BOOST_TEST(runs[5].policy == "bestfit");
  BOOST_TEST(runs[5].seed == 44u);
  BOOST_TEST(runs[5].report.allocation == one.allocation);
  BOOST_TEST(runs[5].report.placed == one.placed);
  // A small slice's arrivals may step over a load: only the seeds that reached it count.
  const auto at_full = [&](size_t run) { return runs[run].report.allocation.count(100) > 0; };
  size_t random_runs = 0;
  size_t bestfit_runs = 0;
  size_t paired = 0;
  double difference = 0;
  for (size_t s = 0; s < 3; ++s) {
    random_runs += at_full(s) ? 1 : 0;
    bestfit_runs += at_full(3 + s) ? 1 : 0;
    if (at_full(s) && at_full(3 + s)) {
      ++paired;
      difference += runs[3 + s].report.allocation.at(100) - runs[s].report.allocation.at(100);
    }
  }
  BOOST_TEST_REQUIRE(paired >= 1u);
  const auto summaries = runtime::summarize(runs, 100, "random");
  BOOST_TEST_REQUIRE(summaries.size() == 2u);
  BOOST_TEST(summaries[0].policy == "random");
  BOOST_TEST(summaries[0].runs == random_runs);
  BOOST_TEST(summaries[0].ties == random_runs);  // the baseline against itself
  BOOST_TEST(summaries[0].paired_mean_difference == 0.0);
  const auto& bestfit = summaries[1];
  BOOST_TEST(bestfit.runs == bestfit_runs);
  BOOST_TEST(bestfit.wins + bestfit.ties + bestfit.losses == paired);
  BOOST_TEST(bestfit.paired_mean_difference == difference / static_cast<double>(paired),
             boost::test_tools::tolerance(1e-9));
  BOOST_TEST(bestfit.allocation.least <= bestfit.allocation.mean);
  BOOST_TEST(bestfit.allocation.mean <= bestfit.allocation.most);
}

BOOST_AUTO_TEST_SUITE_END()
