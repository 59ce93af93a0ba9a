// unisched-bench at a tiny size: every scenario runs and every JSON field is there and sane.
// No timing is asserted.
#include <sys/wait.h>
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <map>
#include <sstream>
#include <vector>

#include "tests/json.hpp"
#include "tests/test_files.hpp"

namespace {

struct BenchRun {
  int status = -1;
  std::string out;
  std::vector<unisched::testing::Json> results;  ///< one per stdout line
};

BenchRun bench(const std::string& args) {
  unisched::testing::ScratchDirectory dir;
  const std::string out = dir.path() + "/bench.out";
  const int status = std::system(
      (std::string(UNISCHED_BENCH_BINARY) + " " + args + " >" + out + " 2>/dev/null").c_str());
  BenchRun run;
  run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.out = unisched::testing::read_file(out);
  std::istringstream lines(run.out);
  for (std::string line; std::getline(lines, line);) {
    run.results.push_back(unisched::testing::parse_json(line));
    BOOST_TEST(!run.results.back().is_discarded(), "not JSON: " << line);
  }
  return run;
}

/// The fields every result has, and the latency pair's order.
void check_common(const unisched::testing::Json& result, const std::string& scenario) {
  BOOST_TEST(result.at("scenario").get<std::string>() == scenario);
  BOOST_TEST(result.at("cores").get<int>() >= 1);
  // The figures name the allocator the build linked ("gperftools 2.10", "glibc malloc").
  const std::string allocator = result.at("allocator").get<std::string>();
  BOOST_TEST(allocator.rfind(UNISCHED_BENCH_ALLOCATOR, 0) == 0u, allocator);
  // and the pages of its heap: the kernel's default unless UNISCHED_HEAP_PAGES asks for huge.
  const char* asked = std::getenv("UNISCHED_HEAP_PAGES");
  const bool huge = asked != nullptr && std::string(asked) == "huge";
  const std::string pages = !huge ? "small" : allocator == "glibc malloc" ? "no hook" : "huge";
  BOOST_TEST(result.at("heap_pages").get<std::string>() == pages);
  BOOST_TEST(result.at("ok").get<bool>());
}

void check_latencies(const unisched::testing::Json& result, const std::string& p50,
                     const std::string& p99) {
  BOOST_TEST(result.at(p50).get<double>() > 0);
  BOOST_TEST(result.at(p99).get<double>() >= result.at(p50).get<double>());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(bench_smoke)

BOOST_AUTO_TEST_CASE(ingest_in_process_counts_every_change_and_its_visibility) {
  const auto run = bench("--scenario ingest --clusters 2 --nodes 50 --updates 10 --deltas 5");
  BOOST_TEST_REQUIRE(run.status == 0, run.out);
  BOOST_TEST_REQUIRE(run.results.size() == 1u);
  const unisched::testing::Json& result = run.results[0];
  check_common(result, "ingest");
  BOOST_TEST(result.at("deltas").get<uint64_t>() == 2u * 10u * 5u);
  BOOST_TEST(result.at("deltas_per_s").get<double>() > 0);
  check_latencies(result, "p50_ms", "p99_ms");
  check_latencies(result, "visible_p50_ms", "visible_p99_ms");
}

BOOST_AUTO_TEST_CASE(ingest_remote_runs_over_caf_and_grpc) {
  const auto run =
      bench("--scenario ingest-remote --clusters 2 --nodes 50 --updates 10 --deltas 5");
  BOOST_TEST_REQUIRE(run.status == 0, run.out);
  BOOST_TEST_REQUIRE(run.results.size() == 2u, run.out);
  BOOST_TEST(run.results[0].at("transport").get<std::string>() == "caf");
  BOOST_TEST(run.results[1].at("transport").get<std::string>() == "grpc");
  for (const unisched::testing::Json& result : run.results) {
    check_common(result, "ingest-remote");
    BOOST_TEST(result.at("deltas").get<uint64_t>() == 2u * 10u * 5u);
    BOOST_TEST(result.at("deltas_per_s").get<double>() > 0);
    check_latencies(result, "p50_ms", "p99_ms");
  }
}

BOOST_AUTO_TEST_CASE(resync_reports_its_time_and_wire_size) {
  const auto run = bench("--scenario resync --nodes 100");
  BOOST_TEST_REQUIRE(run.status == 0, run.out);
  BOOST_TEST_REQUIRE(run.results.size() == 1u);
  const unisched::testing::Json& result = run.results[0];
  check_common(result, "resync");
  BOOST_TEST(result.at("nodes").get<int>() == 100);
  BOOST_TEST(result.at("resync_ms").get<double>() > 0);
  BOOST_TEST(result.at("decode_ms").get<double>() <= result.at("resync_ms").get<double>());
  // Eight accelerators and the node's amounts: well over 100 bytes, well under 4 KiB.
  BOOST_TEST(result.at("bytes_per_node").get<double>() > 100);
  BOOST_TEST(result.at("bytes_per_node").get<double>() < 4096);
}

BOOST_AUTO_TEST_CASE(schedule_runs_both_commit_modes_with_one_and_two_schedulers) {
  // 60 nodes: the adaptive sample scores every node of so small a fleet.
  const auto run = bench("--scenario schedule --clusters 3 --nodes 20 --seconds 1");
  BOOST_TEST_REQUIRE(run.status == 0, run.out);
  BOOST_TEST_REQUIRE(run.results.size() == 5u, run.out);
  struct Expected {
    std::string mode;
    int schedulers;
    int node_sample;
    std::string rule;
  };
  const std::vector<Expected> expected = {{"cluster", 1, 0, "adaptive"},
                                          {"cluster", 2, 0, "adaptive"},
                                          {"node", 1, 0, "adaptive"},
                                          {"node", 2, 0, "adaptive"},
                                          {"node", 1, 0, "given"}};
  for (size_t i = 0; i < expected.size(); ++i) {
    const unisched::testing::Json& result = run.results[i];
    check_common(result, "schedule");
    BOOST_TEST(result.at("mode").get<std::string>() == expected[i].mode);
    BOOST_TEST(result.at("schedulers").get<int>() == expected[i].schedulers);
    BOOST_TEST(result.at("node_sample").get<int>() == expected[i].node_sample);
    BOOST_TEST(result.at("sample_rule").get<std::string>() == expected[i].rule);
    BOOST_TEST(result.at("decisions").get<uint64_t>() > 0u);
    BOOST_TEST(result.at("placed").get<uint64_t>() > 0u);
    BOOST_TEST(result.at("placed").get<uint64_t>() <= result.at("decisions").get<uint64_t>());
    BOOST_TEST(result.at("decisions_per_s").get<double>() > 0);
    check_latencies(result, "p50_ms", "p99_ms");
    BOOST_TEST(result.at("conflict_rate").get<double>() >= 0);
    BOOST_TEST(result.at("conflict_rate").get<double>() <= 1);
    if (expected[i].schedulers == 1) {
      // A scheduler sees its own commits before their replies: alone, it never conflicts.
      BOOST_TEST(result.at("conflicts").get<uint64_t>() == 0u);
    }
  }
}

BOOST_AUTO_TEST_CASE(sample_quality_compares_the_sample_with_the_best_node) {
  // 1,200 nodes (a few fewer after the simulation's churn): above the adaptive rule's 1,000, so
  // each replica scores 256 drawn nodes.
  const auto large = bench("--scenario sample-quality --clusters 3 --nodes 400 --seconds 1");
  BOOST_TEST_REQUIRE(large.status == 0, large.out);
  BOOST_TEST_REQUIRE(large.results.size() == 1u, large.out);
  const unisched::testing::Json& sampled = large.results[0];
  check_common(sampled, "sample-quality");
  BOOST_TEST(sampled.at("fleet_nodes").get<int>() > 1100);
  BOOST_TEST(sampled.at("nodes_scored").get<int>() == 256);
  BOOST_TEST(sampled.at("compared").get<int>() > 50);
  BOOST_TEST(sampled.at("same_score").get<int>() <= sampled.at("compared").get<int>());
  BOOST_TEST(sampled.at("mean_score_ratio").get<double>() > 0);
  BOOST_TEST(sampled.at("mean_score_ratio").get<double>() <= 1);
  BOOST_TEST(sampled.at("p1_score_ratio").get<double>() <=
             sampled.at("mean_score_ratio").get<double>());
  // A fleet the rule scores node by node decides exactly as scoring every node does.
  const auto small = bench("--scenario sample-quality --clusters 5 --nodes 40 --seconds 1");
  BOOST_TEST_REQUIRE(small.status == 0, small.out);
  BOOST_TEST_REQUIRE(small.results.size() == 1u, small.out);
  const unisched::testing::Json& every = small.results[0];
  BOOST_TEST(every.at("nodes_scored").get<int>() == 0);
  BOOST_TEST(every.at("compared").get<int>() > 50);
  BOOST_TEST(every.at("same_score").get<int>() == every.at("compared").get<int>());
  BOOST_TEST(every.at("mean_score_ratio").get<double>() == 1.0);
}

BOOST_AUTO_TEST_CASE(fleet_memory_names_each_part_of_the_runtime) {
  const auto run = bench("--scenario fleet-memory --clusters 2 --nodes 300");
  BOOST_TEST_REQUIRE(run.status == 0, run.out);
  BOOST_TEST_REQUIRE(run.results.size() == 1u, run.out);
  const unisched::testing::Json& result = run.results[0];
  check_common(result, "fleet-memory");
  BOOST_TEST(result.at("nodes").get<int>() >= 500);  // the simulation's churn moves a few
  double runtime = 0;
  // The agents hold each node's one state; the centre and each scheduler share it and hold at
  // least an entry and a pointer of their own per node.
  const std::map<std::string, double> at_least = {
      {"agent", 100}, {"centre", 16}, {"scheduler", 2 * 16}, {"churn", 0}};
  for (const auto& [part, least] : at_least) {
    const double bytes = result.at(part + "_bytes_per_node").get<double>();
    BOOST_TEST(bytes > least, part);
    runtime += bytes;
  }
  BOOST_TEST(result.at("simulation_bytes_per_node").get<double>() > 100);
  BOOST_TEST(result.at("runtime_bytes_per_node").get<double>() == runtime,
             boost::test_tools::tolerance(0.01));
}

BOOST_AUTO_TEST_CASE(quota_runs_with_and_without_the_ledger_and_gives_the_ratio) {
  // Big enough that 1 s of decisions does not fill the clusters (each run has clusters of its own).
  const auto run = bench("--scenario quota --clusters 3 --nodes 100 --seconds 1 --pairs 1");
  BOOST_TEST_REQUIRE(run.status == 0, run.out);
  BOOST_TEST_REQUIRE(run.results.size() == 3u, run.out);
  BOOST_TEST(run.results[0].at("quotas").get<bool>() == false);
  BOOST_TEST(run.results[1].at("quotas").get<bool>() == true);
  for (size_t i = 0; i < 2; ++i) {
    check_common(run.results[i], "quota");
    BOOST_TEST(run.results[i].at("placed").get<uint64_t>() > 0u);
  }
  check_common(run.results[2], "quota-ratio");
  BOOST_TEST(run.results[2].at("decisions_per_s_on_over_off").get<double>() > 0);
}

BOOST_AUTO_TEST_CASE(scale_reports_memory_per_node_and_both_throughputs) {
  const auto run =
      bench("--scenario scale --clusters 2 --nodes 500 --updates 5 --deltas 10 --seconds 1");
  BOOST_TEST_REQUIRE(run.status == 0, run.out);
  BOOST_TEST_REQUIRE(run.results.size() == 1u);
  const unisched::testing::Json& result = run.results[0];
  check_common(result, "scale");
  // A node with eight devices cannot be held in under 100 bytes, nor should it need 1 MiB.
  BOOST_TEST(result.at("bytes_per_node").get<double>() > 100);
  BOOST_TEST(result.at("bytes_per_node").get<double>() < 1 << 20);
  BOOST_TEST(result.at("deltas_per_s").get<double>() > 0);
  BOOST_TEST(result.at("decisions_per_s").get<double>() > 0);
  check_latencies(result, "p50_ms", "p99_ms");
  // A resync of one cluster, and two schedulers after the first (on what it left free).
  BOOST_TEST(result.at("resync_p50_ms").get<double>() > 0);
  BOOST_TEST(result.at("two_schedulers_decisions_per_s").get<double>() > 0);
  const double conflicts = result.at("two_schedulers_conflict_rate").get<double>();
  BOOST_TEST((conflicts >= 0 && conflicts <= 1));
}

BOOST_AUTO_TEST_CASE(full_sync_moves_about_nodes_over_changes_times_the_bytes) {
  double whole_ratio = 0;
  for (const std::string deltas : {"whole", "usage"}) {
    const auto run = bench(
        "--scenario full-sync-baseline --clusters 2 --nodes 200 --updates 5 --deltas 10 "
        "--node-deltas " +
        deltas);
    BOOST_TEST_REQUIRE(run.status == 0, run.out);
    BOOST_TEST_REQUIRE(run.results.size() == 1u);
    const unisched::testing::Json& result = run.results[0];
    check_common(result, "full-sync-baseline");
    BOOST_TEST(result.at("node_deltas").get<std::string>() == deltas);
    const double ratio = result.at("bytes_ratio").get<double>();
    if (deltas == "whole") {
      // A snapshot carries all 200 nodes where an update carries 10 of them.
      BOOST_TEST(ratio > 15);
      BOOST_TEST(ratio < 25);
      whole_ratio = ratio;
    } else {
      // Only the allocations change: an update carries a few bytes of each of its 10 nodes.
      BOOST_TEST(ratio > 4 * whole_ratio);
    }
    BOOST_TEST(result.at("incremental_cpu_ms_per_interval").get<double>() > 0);
    BOOST_TEST(result.at("full_sync_cpu_ms_per_interval").get<double>() > 0);
  }
}

BOOST_AUTO_TEST_CASE(kubernetes_ingest_lists_in_pages_and_watches_every_change) {
  const auto run = bench("--scenario kube-ingest --nodes 1200 --updates 300");
  BOOST_TEST_REQUIRE(run.status == 0, run.out);
  BOOST_TEST_REQUIRE(run.results.size() == 1u);
  const unisched::testing::Json& result = run.results[0];
  check_common(result, "kube-ingest");
  BOOST_TEST(result.at("pages").get<int64_t>() == 3);  // 500 a page
  BOOST_TEST(result.at("list_nodes_per_s").get<double>() > 0);
  BOOST_TEST(result.at("parse_nodes_per_s").get<double>() > 0);
  BOOST_TEST(result.at("watch_events_per_s").get<double>() > 0);
}

BOOST_AUTO_TEST_CASE(etcd_runs_beside_unisched_and_gives_both_ratios) {
  // A real etcd on loopback, its data on tmpfs, stopped and removed by the bench.
  const auto run =
      bench("--scenario etcd --nodes 500 --committers 2 --writers 2 --seconds 1 --storage tmpfs");
  BOOST_TEST_REQUIRE(run.status == 0, run.out);
  BOOST_TEST_REQUIRE(run.results.size() == 1u);
  const auto& result = run.results[0];
  check_common(result, "etcd");
  BOOST_TEST(result.at("storage").get<std::string>() == "tmpfs");
  BOOST_TEST(result.at("etcd_commits").get<uint64_t>() > 0u);
  BOOST_TEST(result.at("etcd_conflict_rate").get<double>() >= 0);
  BOOST_TEST(result.at("etcd_conflict_rate").get<double>() < 1);
  check_latencies(result, "etcd_commit_p50_ms", "etcd_commit_p99_ms");
  BOOST_TEST(result.at("etcd_status_puts_per_s").get<double>() > 0);
  BOOST_TEST(result.at("unisched_commits").get<uint64_t>() > 0u);
  // The small requests leave room for the whole run, so the commit rate is the commit path's,
  // not the cluster's room over the run's seconds.
  BOOST_TEST(result.at("unisched_placed").get<uint64_t>() > 0u);
  BOOST_TEST(result.at("unisched_placed").get<uint64_t>() <=
             result.at("unisched_decisions").get<uint64_t>());
  BOOST_TEST(result.at("unisched_room_used").get<double>() < 0.9);
  BOOST_TEST(result.at("commit_ratio").get<double>() > 0);
  BOOST_TEST(result.at("ingest_ratio_one_per_update").get<double>() > 0);
  BOOST_TEST(result.at("ingest_ratio_batched").get<double>() > 0);
}

BOOST_AUTO_TEST_CASE(bad_flags_are_usage_errors) {
  BOOST_TEST(bench("--scenario warp-speed").status == 2);
  BOOST_TEST(bench("--nodes many").status == 2);
  BOOST_TEST(bench("--nodes 0").status == 2);
  BOOST_TEST(bench("--colour blue").status == 2);
  BOOST_TEST(bench("--nodes").status == 2);
  BOOST_TEST(bench("--scenario ingest-remote --transport pigeon").status == 2);
  BOOST_TEST(bench("--scenario schedule --mode eventual").status == 2);
  BOOST_TEST(bench("--scenario schedule --sample -1").status == 2);
  BOOST_TEST(bench("--scenario etcd --storage floppy").status == 2);
  BOOST_TEST(bench("--scenario sample-quality --audit-every 0").status == 2);
}

BOOST_AUTO_TEST_CASE(help_prints_the_usage_and_every_scenario_and_succeeds) {
  unisched::testing::ScratchDirectory dir;
  const std::string out = dir.path() + "/help.out";
  for (const std::string flag : {"--help", "-h", "--scenario schedule --help"}) {
    const int status =
        std::system((std::string(UNISCHED_BENCH_BINARY) + " " + flag + " >" + out).c_str());
    BOOST_TEST((WIFEXITED(status) && WEXITSTATUS(status) == 0), flag);
    const std::string text = unisched::testing::read_file(out);
    BOOST_TEST(text.find("usage: unisched-bench") != std::string::npos, flag);
    BOOST_TEST(text.find("  sample-quality ") != std::string::npos, flag);
    BOOST_TEST(text.find("  etcd ") != std::string::npos, flag);
  }
}

BOOST_AUTO_TEST_CASE(profiles_that_are_not_there_are_a_failed_run_not_a_result) {
  for (const char* scenario : {"sample-quality", "fleet-memory"}) {
    const auto run = bench(std::string("--scenario ") + scenario +
                           " --clusters 2 --nodes 10 --seconds 1 --profiles /nonexistent/profiles");
    BOOST_TEST(run.status == 1, scenario);
    BOOST_TEST_REQUIRE(run.results.size() == 1u, run.out);
    BOOST_TEST(!run.results[0].at("ok").get<bool>(), scenario);
  }
}

BOOST_AUTO_TEST_CASE(an_unknown_policy_is_a_failed_run_not_a_result) {
  const auto run = bench("--scenario schedule --clusters 1 --nodes 5 --seconds 1 --policy magic");
  BOOST_TEST(run.status == 1);
  BOOST_TEST_REQUIRE(!run.results.empty(), run.out);  // each configuration says it failed
  for (const unisched::testing::Json& result : run.results) {
    BOOST_TEST(!result.at("ok").get<bool>());
    BOOST_TEST(result.at("decisions").get<uint64_t>() == 0u);
  }
}

BOOST_AUTO_TEST_SUITE_END()
