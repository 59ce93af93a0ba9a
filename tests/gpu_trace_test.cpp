#include "adapters/gpu_trace.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <numeric>

#include "tests/shared_data.hpp"

using namespace unisched;
using adapters::parse_trace_nodes;
using adapters::parse_trace_pods;

namespace {

constexpr const char* kPodHeader =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
    "deletion_time,scheduled_time\n";

bool mentions(const std::vector<std::string>& problems, const std::string& text) {
  for (const std::string& problem : problems) {
    if (problem.find(text) != std::string::npos) {
      return true;
    }
  }
  return false;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(gpu_trace)

BOOST_AUTO_TEST_CASE(nodes_read_by_column_name_and_cpu_only_nodes_have_no_model) {
  const auto read = parse_trace_nodes(
      "model,sn,gpu,cpu_milli,memory_mib\r\nV100M32,n1,8,96000,786432\r\n,n2,0,32000,262144\r\n",
      "nodes.csv");
  BOOST_TEST(read.problems.empty());
  BOOST_TEST_REQUIRE(read.rows.size() == 2u);
  BOOST_TEST(read.rows[0].name == "n1");
  BOOST_TEST(read.rows[0].gpus == 8);
  BOOST_TEST(read.rows[0].model == "V100M32");
  BOOST_TEST(read.rows[0].cpu_milli == 96000);
  BOOST_TEST(read.rows[1].model.empty());
}

BOOST_AUTO_TEST_CASE(bad_node_rows_are_named_and_good_ones_kept) {
  const auto read = parse_trace_nodes(
      "sn,cpu_milli,memory_mib,gpu,model\n"
      "good,64000,262144,2,P100\n"
      "cpu,lots,262144,2,P100\n"
      "neg,64000,-1,2,P100\n"
      "nomodel,64000,262144,2,\n"
      "short,64000,262144\n"
      ",64000,262144,2,P100\n",
      "nodes.csv");
  BOOST_TEST_REQUIRE(read.rows.size() == 1u);
  BOOST_TEST(read.rows[0].name == "good");
  BOOST_TEST_REQUIRE(read.problems.size() == 5u);
  BOOST_TEST(read.problems[0] ==
             "nodes.csv:3: cpu_milli: \"lots\" is not a whole number from 0 to 1099511627776");
  BOOST_TEST(read.problems[1].find("nodes.csv:4: memory_mib: \"-1\"") == 0u);
  BOOST_TEST(read.problems[2] == "nodes.csv:5: model: a node with GPUs needs their model");
  BOOST_TEST(read.problems[3] == "nodes.csv:6: row: has 3 fields, the header 5");
  BOOST_TEST(read.problems[4] == "nodes.csv:7: sn: a row needs a name");
}

BOOST_AUTO_TEST_CASE(a_missing_column_is_one_problem_for_the_header) {
  const auto read = parse_trace_nodes("sn,cpu_milli,memory_mib,model\nn1,1,1,T4\n", "x.csv");
  BOOST_TEST(read.rows.empty());
  BOOST_TEST_REQUIRE(read.problems.size() == 1u);
  BOOST_TEST(read.problems[0] == "x.csv:1: column gpu: missing from the header");
  BOOST_TEST(parse_trace_pods("name,cpu_milli\n", "p.csv").problems[0] ==
             "p.csv:1: column memory_mib: missing from the header");
}

BOOST_AUTO_TEST_CASE(pods_share_one_gpu_take_whole_ones_or_none_and_may_name_models) {
  const auto read =
      parse_trace_pods(std::string(kPodHeader) +
                           "share,6000,12288,1,460,,LS,Running,0,1,0\n"
                           "whole,12000,16384,4,1000,V100M16|V100M32,LS,Running,0,1,0\n"
                           "cpu,4000,8192,0,0,,BE,Running,0,1,0\n",
                       "pods.csv");
  BOOST_TEST(read.problems.empty());
  BOOST_TEST_REQUIRE(read.rows.size() == 3u);
  BOOST_TEST(read.rows[0].gpus == 1);
  BOOST_TEST(read.rows[0].gpu_milli == 460);
  BOOST_TEST(read.rows[0].models.empty());
  BOOST_TEST(read.rows[1].gpus == 4);
  BOOST_TEST((read.rows[1].models == std::vector<std::string>{"V100M16", "V100M32"}));
  BOOST_TEST(read.rows[2].gpus == 0);
}

BOOST_AUTO_TEST_CASE(the_five_column_pod_list_reads_like_the_full_one) {
  const auto read = parse_trace_pods(
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np,1000,1024,2,1000\n", "m.csv");
  BOOST_TEST(read.problems.empty());
  BOOST_TEST_REQUIRE(read.rows.size() == 1u);
  BOOST_TEST(read.rows[0].gpus == 2);
}

BOOST_AUTO_TEST_CASE(impossible_pod_shapes_are_refused_with_their_reason) {
  const auto read = parse_trace_pods(std::string(kPodHeader) +
                                         "a,1000,1024,2,500,,LS,Running,0,1,0\n"
                                         "b,1000,1024,1,1001,,LS,Running,0,1,0\n"
                                         "c,1000,1024,1,0,,LS,Running,0,1,0\n"
                                         "d,1000,1024,0,300,,LS,Running,0,1,0\n"
                                         "e,1000,1024,1,1.5,,LS,Running,0,1,0\n",
                                     "pods.csv");
  BOOST_TEST(read.rows.empty());
  BOOST_TEST_REQUIRE(read.problems.size() == 5u);
  BOOST_TEST(read.problems[0] ==
             "pods.csv:2: gpu_milli: a pod of 2 GPUs takes them whole (1000), not 500");
  BOOST_TEST(read.problems[1] ==
             "pods.csv:3: gpu_milli: \"1001\" is not a whole number from 0 to 1000");
  BOOST_TEST(mentions(read.problems, "pods.csv:4: gpu_milli: a pod with GPUs needs a share"));
  BOOST_TEST(mentions(read.problems, "pods.csv:5: gpu_milli: a pod without GPUs takes no share"));
  BOOST_TEST(mentions(read.problems, "pods.csv:6: gpu_milli: \"1.5\""));
}

BOOST_AUTO_TEST_CASE(an_unreadable_file_is_one_problem) {
  const auto read = adapters::read_trace_pods("/nonexistent/pods.csv");
  BOOST_TEST(read.rows.empty());
  BOOST_TEST_REQUIRE(read.problems.size() == 1u);
  BOOST_TEST(read.problems[0] == "/nonexistent/pods.csv: cannot be read");
}

BOOST_AUTO_TEST_SUITE_END()

// Needs the Alibaba trace in ../shared: a suite and ctest entry of its own, skipped alone.
BOOST_AUTO_TEST_SUITE(gpu_trace_shared_data)

BOOST_AUTO_TEST_CASE(the_shared_trace_reads_whole,
                     *boost::unit_test::precondition(testing::SharedFileAvailable{
                         "data/alibaba-gpu-2023"})) {
  const std::string dir = testing::shared_path("data/alibaba-gpu-2023").string() + "/";
  const auto nodes = adapters::read_trace_nodes(dir + "openb_node_list_gpu_node.csv");
  BOOST_TEST(nodes.problems.empty());
  BOOST_TEST(nodes.rows.size() == 1213u);
  const int gpus = std::accumulate(nodes.rows.begin(), nodes.rows.end(), 0,
                                   [](int sum, const auto& node) { return sum + node.gpus; });
  BOOST_TEST(gpus == 6212);  // the figures METHOD.md gives
  const auto pods = adapters::read_trace_pods(dir + "openb_pod_list_default.csv");
  BOOST_TEST(pods.problems.empty());
  BOOST_TEST(pods.rows.size() == 8152u);
  const auto multigpu = adapters::read_trace_pods(dir + "openb_pod_list_multigpu20.csv");
  BOOST_TEST(multigpu.problems.empty());
  BOOST_TEST(multigpu.rows.size() == 8324u);
  const auto constrained = adapters::read_trace_pods(dir + "openb_pod_list_gpuspec10.csv");
  BOOST_TEST(constrained.problems.empty());
  BOOST_TEST(std::count_if(constrained.rows.begin(), constrained.rows.end(),
                           [](const auto& pod) { return !pod.models.empty(); }) > 0);
}

BOOST_AUTO_TEST_SUITE_END()
