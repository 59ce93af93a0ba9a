// unisched-bench at a tiny size: every scenario runs and every JSON field is there and sane.
// No timing is asserted.
#include <sys/wait.h>
#include <yaml-cpp/yaml.h>
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <sstream>
#include <vector>

#include "tests/test_files.hpp"

namespace {

struct BenchRun {
  int status = -1;
  std::string out;
  std::vector<YAML::Node> results;  ///< one per stdout line
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
    run.results.push_back(YAML::Load(line));
  }
  return run;
}

/// The fields every result has, and the latency pair's order.
void check_common(const YAML::Node& result, const std::string& scenario) {
  BOOST_TEST(result["scenario"].as<std::string>() == scenario);
  BOOST_TEST(result["cores"].as<int>() >= 1);
  BOOST_TEST(result["ok"].as<bool>());
}

void check_latencies(const YAML::Node& result, const std::string& p50, const std::string& p99) {
  BOOST_TEST(result[p50].as<double>() > 0);
  BOOST_TEST(result[p99].as<double>() >= result[p50].as<double>());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(bench_smoke)

BOOST_AUTO_TEST_CASE(ingest_in_process_counts_every_change_and_its_visibility) {
  const auto run = bench("--scenario ingest --clusters 2 --nodes 50 --updates 10 --deltas 5");
  BOOST_TEST_REQUIRE(run.status == 0, run.out);
  BOOST_TEST_REQUIRE(run.results.size() == 1u);
  const YAML::Node& result = run.results[0];
  check_common(result, "ingest");
  BOOST_TEST(result["deltas"].as<uint64_t>() == 2u * 10u * 5u);
  BOOST_TEST(result["deltas_per_s"].as<double>() > 0);
  check_latencies(result, "p50_ms", "p99_ms");
  check_latencies(result, "visible_p50_ms", "visible_p99_ms");
}

BOOST_AUTO_TEST_CASE(ingest_remote_runs_over_caf_and_grpc) {
  const auto run =
      bench("--scenario ingest-remote --clusters 2 --nodes 50 --updates 10 --deltas 5");
  BOOST_TEST_REQUIRE(run.status == 0, run.out);
  BOOST_TEST_REQUIRE(run.results.size() == 2u, run.out);
  BOOST_TEST(run.results[0]["transport"].as<std::string>() == "caf");
  BOOST_TEST(run.results[1]["transport"].as<std::string>() == "grpc");
  for (const YAML::Node& result : run.results) {
    check_common(result, "ingest-remote");
    BOOST_TEST(result["deltas"].as<uint64_t>() == 2u * 10u * 5u);
    BOOST_TEST(result["deltas_per_s"].as<double>() > 0);
    check_latencies(result, "p50_ms", "p99_ms");
  }
}

BOOST_AUTO_TEST_CASE(resync_reports_its_time_and_wire_size) {
  const auto run = bench("--scenario resync --nodes 100");
  BOOST_TEST_REQUIRE(run.status == 0, run.out);
  BOOST_TEST_REQUIRE(run.results.size() == 1u);
  const YAML::Node& result = run.results[0];
  check_common(result, "resync");
  BOOST_TEST(result["nodes"].as<int>() == 100);
  BOOST_TEST(result["resync_ms"].as<double>() > 0);
  BOOST_TEST(result["decode_ms"].as<double>() <= result["resync_ms"].as<double>());
  // Eight accelerators and the node's amounts: well over 100 bytes, well under 4 KiB.
  BOOST_TEST(result["bytes_per_node"].as<double>() > 100);
  BOOST_TEST(result["bytes_per_node"].as<double>() < 4096);
}

BOOST_AUTO_TEST_CASE(schedule_runs_both_commit_modes_with_one_and_two_schedulers) {
  // 60 nodes: more than the sample of 32, so the sampled runs do sample.
  const auto run = bench("--scenario schedule --clusters 3 --nodes 20 --seconds 1");
  BOOST_TEST_REQUIRE(run.status == 0, run.out);
  BOOST_TEST_REQUIRE(run.results.size() == 5u, run.out);
  struct Expected {
    std::string mode;
    int schedulers;
    int node_sample;
  };
  const std::vector<Expected> expected = {
      {"cluster", 1, 32}, {"cluster", 2, 32}, {"node", 1, 32}, {"node", 2, 32}, {"node", 1, 0}};
  for (size_t i = 0; i < expected.size(); ++i) {
    const YAML::Node& result = run.results[i];
    check_common(result, "schedule");
    BOOST_TEST(result["mode"].as<std::string>() == expected[i].mode);
    BOOST_TEST(result["schedulers"].as<int>() == expected[i].schedulers);
    BOOST_TEST(result["node_sample"].as<int>() == expected[i].node_sample);
    BOOST_TEST(result["decisions"].as<uint64_t>() > 0u);
    BOOST_TEST(result["placed"].as<uint64_t>() > 0u);
    BOOST_TEST(result["placed"].as<uint64_t>() <= result["decisions"].as<uint64_t>());
    BOOST_TEST(result["decisions_per_s"].as<double>() > 0);
    check_latencies(result, "p50_ms", "p99_ms");
    BOOST_TEST(result["conflict_rate"].as<double>() >= 0);
    BOOST_TEST(result["conflict_rate"].as<double>() <= 1);
    if (expected[i].schedulers == 1) {
      // A scheduler sees its own commits before their replies: alone, it never conflicts.
      BOOST_TEST(result["conflicts"].as<uint64_t>() == 0u);
    }
  }
}

BOOST_AUTO_TEST_CASE(scale_reports_memory_per_node_and_both_throughputs) {
  const auto run =
      bench("--scenario scale --clusters 2 --nodes 500 --updates 5 --deltas 10 --seconds 1");
  BOOST_TEST_REQUIRE(run.status == 0, run.out);
  BOOST_TEST_REQUIRE(run.results.size() == 1u);
  const YAML::Node& result = run.results[0];
  check_common(result, "scale");
  // A node with eight devices cannot be held in under 100 bytes, nor should it need 1 MiB.
  BOOST_TEST(result["bytes_per_node"].as<double>() > 100);
  BOOST_TEST(result["bytes_per_node"].as<double>() < 1 << 20);
  BOOST_TEST(result["deltas_per_s"].as<double>() > 0);
  BOOST_TEST(result["decisions_per_s"].as<double>() > 0);
  check_latencies(result, "p50_ms", "p99_ms");
}

BOOST_AUTO_TEST_CASE(full_sync_moves_about_nodes_over_changes_times_the_bytes) {
  const auto run =
      bench("--scenario full-sync-baseline --clusters 2 --nodes 200 --updates 5 --deltas 10");
  BOOST_TEST_REQUIRE(run.status == 0, run.out);
  BOOST_TEST_REQUIRE(run.results.size() == 1u);
  const YAML::Node& result = run.results[0];
  check_common(result, "full-sync-baseline");
  // A snapshot carries all 200 nodes where an update carries 10 of them.
  BOOST_TEST(result["bytes_ratio"].as<double>() > 15);
  BOOST_TEST(result["bytes_ratio"].as<double>() < 25);
  BOOST_TEST(result["incremental_cpu_ms_per_interval"].as<double>() > 0);
  BOOST_TEST(result["full_sync_cpu_ms_per_interval"].as<double>() > 0);
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
}

BOOST_AUTO_TEST_CASE(an_unknown_policy_is_a_failed_run_not_a_result) {
  const auto run = bench("--scenario schedule --clusters 1 --nodes 5 --seconds 1 --policy magic");
  BOOST_TEST(run.status == 1);
  for (const YAML::Node& result : run.results) {
    BOOST_TEST(!result["ok"].as<bool>());
  }
}

BOOST_AUTO_TEST_SUITE_END()
