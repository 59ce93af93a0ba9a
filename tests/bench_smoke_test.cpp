// unisched-bench at a tiny size: every JSON field is there and sane. No timing is asserted.
#include <sys/wait.h>
#include <yaml-cpp/yaml.h>
#include <boost/test/unit_test.hpp>

#include <cstdlib>

#include "tests/test_files.hpp"

namespace {

std::pair<int, std::string> bench(const std::string& args, const std::string& dir) {
  const std::string out = dir + "/bench.out";
  const int status = std::system(
      (std::string(UNISCHED_BENCH_BINARY) + " " + args + " >" + out + " 2>/dev/null").c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, unisched::testing::read_file(out)};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(bench_smoke)

BOOST_AUTO_TEST_CASE(ingest_remote_over_grpc_reports_every_figure) {
  unisched::testing::ScratchDirectory dir;
  const auto [status, out] =
      bench("--scenario ingest-remote --clusters 2 --nodes 50 --updates 10 --deltas 5", dir.path());
  BOOST_TEST_REQUIRE(status == 0, out);
  const YAML::Node result = YAML::Load(out);
  BOOST_TEST(result["scenario"].as<std::string>() == "ingest-remote");
  BOOST_TEST(result["transport"].as<std::string>() == "grpc");
  BOOST_TEST(result["cores"].as<int>() >= 1);
  BOOST_TEST(result["ok"].as<bool>());
  // Every delta counted: the first update of each cluster lists its nodes, then 10 of 5.
  BOOST_TEST(result["deltas"].as<uint64_t>() == 2u * 50u + 2u * 10u * 5u);
  BOOST_TEST(result["deltas_per_s"].as<double>() > 0);
  BOOST_TEST(result["p50_ms"].as<double>() > 0);
  BOOST_TEST(result["p99_ms"].as<double>() >= result["p50_ms"].as<double>());
}

BOOST_AUTO_TEST_CASE(resync_reports_its_time_and_wire_size) {
  unisched::testing::ScratchDirectory dir;
  const auto [status, out] = bench("--scenario resync --nodes 100", dir.path());
  BOOST_TEST_REQUIRE(status == 0, out);
  const YAML::Node result = YAML::Load(out);
  BOOST_TEST(result["scenario"].as<std::string>() == "resync");
  BOOST_TEST(result["nodes"].as<int>() == 100);
  BOOST_TEST(result["ok"].as<bool>());
  BOOST_TEST(result["resync_ms"].as<double>() > 0);
  BOOST_TEST(result["decode_ms"].as<double>() <= result["resync_ms"].as<double>());
  // Eight accelerators and the node's amounts: well over 100 bytes, well under 4 KiB.
  BOOST_TEST(result["bytes_per_node"].as<double>() > 100);
  BOOST_TEST(result["bytes_per_node"].as<double>() < 4096);
}

BOOST_AUTO_TEST_CASE(bad_flags_are_usage_errors) {
  unisched::testing::ScratchDirectory dir;
  BOOST_TEST(bench("--scenario warp-speed", dir.path()).first == 2);
  BOOST_TEST(bench("--nodes many", dir.path()).first == 2);
  BOOST_TEST(bench("--nodes 0", dir.path()).first == 2);
  BOOST_TEST(bench("--colour blue", dir.path()).first == 2);
  BOOST_TEST(bench("--nodes", dir.path()).first == 2);
}

BOOST_AUTO_TEST_SUITE_END()
