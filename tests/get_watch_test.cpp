// `unisched get -w` against a real hub: the listing, then each object as it appears or changes
// (a cluster that joins later, requests as they are decided), and the -o wide/yaml formats.
#include <yaml-cpp/yaml.h>

#include <boost/test/unit_test.hpp>

#include <regex>

#include "tests/hub_process.hpp"

namespace {

using unisched::testing::ActorHarness;
using unisched::testing::ChildProcess;
using unisched::testing::Hub;
using unisched::testing::kBinary;
using unisched::testing::kProfiles;
using unisched::testing::lines_of;

std::unique_ptr<ChildProcess> agent(const Hub& hub, const std::string& profile) {
  return std::make_unique<ChildProcess>(
      std::vector<std::string>{kBinary, "agent", "--hub", hub.address, "--profile",
                               kProfiles + profile},
      hub.dir.path() + "/" + profile + ".log");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(get_watch)

BOOST_AUTO_TEST_CASE(watching_clusters_prints_one_that_joins_later_as_a_json_line) {
  Hub hub;
  const auto t4 = agent(hub, "t4-vm-useast.yaml");
  ActorHarness::wait_until([&] { return hub.get("clusters")["clusters"].size() == 1; },
                           "t4-useast registered");
  ChildProcess watch({kBinary, "get", "clusters", "-w", "-o", "json", "--watch-seconds", "20",
                      "--hub", hub.address},
                     hub.dir.path() + "/watch.out");
  ActorHarness::wait_until([&] { return watch.output().find("t4-useast") != std::string::npos; },
                           "the watch listing t4-useast");
  const auto a100 = agent(hub, "a100-nvlink-uswest.yaml");
  ActorHarness::wait_until([&] { return watch.output().find("a100-uswest") != std::string::npos; },
                           "the watch printing a100-uswest, which joined after it started");
  const auto lines = lines_of(watch.output());
  BOOST_TEST_REQUIRE(lines.size() >= 2u);
  for (const std::string& line : lines) {  // one object a line
    const auto object = unisched::testing::Json::parse(line);
    BOOST_TEST((object["id"] == "t4-useast" || object["id"] == "a100-uswest"), line);
  }
  BOOST_TEST(unisched::testing::Json::parse(lines.front())["id"] == "t4-useast");
}

BOOST_AUTO_TEST_CASE(watching_requests_prints_each_when_it_is_decided_and_not_again_unchanged) {
  Hub hub;
  const auto t4 = agent(hub, "t4-vm-useast.yaml");
  ActorHarness::wait_until([&] { return hub.get("clusters")["clusters"].size() == 1; },
                           "t4-useast registered");
  ChildProcess watch(
      {kBinary, "get", "requests", "-w", "--watch-seconds", "20", "--hub", hub.address},
      hub.dir.path() + "/watch.out");
  ActorHarness::wait_until([&] { return watch.output().rfind("REQUEST", 0) == 0; },
                           "the watch's heading");
  const auto [status, output] = hub.client("submit --wait -f " + std::string(UNISCHED_SOURCE_DIR) +
                                           "/config/requests/examples.yaml");
  BOOST_TEST_REQUIRE(output.find("created") != std::string::npos, output);
  ActorHarness::wait_until(
      [&] {
        const std::string out = watch.output();
        return out.find("nightly-etl") != std::string::npos &&
               out.find("vision-inference") != std::string::npos;
      },
      "the watch printing the decided requests");
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));  // two more polls, no change
  const auto lines = lines_of(watch.output());
  std::set<std::string> distinct(lines.begin(), lines.end());
  BOOST_TEST(distinct.size() == lines.size(), watch.output());  // nothing printed twice
  BOOST_TEST(lines.front().find("PHASE") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(wide_and_yaml_outputs_and_what_watch_refuses) {
  Hub hub;
  const auto t4 = agent(hub, "t4-vm-useast.yaml");
  ActorHarness::wait_until([&] { return hub.has_health("t4-useast", true); }, "t4-useast healthy");
  const auto [wide_status, wide] = hub.client("get clusters -o wide");
  BOOST_TEST(wide_status == 0);
  BOOST_TEST(wide.find("GPUS-FREE") != std::string::npos, wide);
  // GPUS-FREE: free of all, before PLACEMENTS (the simulated cluster's churn moves both).
  BOOST_TEST(std::regex_search(wide, std::regex(R"(t4-useast .* \d+/\d+ yes)")), wide);
  const auto [yaml_status, yaml] = hub.client("get clusters -o yaml");
  BOOST_TEST(yaml_status == 0);
  const YAML::Node parsed = YAML::Load(yaml);
  BOOST_TEST(parsed["clusters"][0]["id"].as<std::string>() == "t4-useast");
  BOOST_TEST(parsed["clusters"][0]["nodes"].as<int>() > 0);
  BOOST_TEST(parsed["clusters"][0]["healthy"].as<bool>());
  const auto [xml_status, xml] = hub.client("get clusters -o xml");
  BOOST_TEST(xml_status == 2);
  BOOST_TEST(xml.find("--output must be table, wide, json or yaml, not \"xml\"") !=
             std::string::npos);
  const auto [nodes_status, nodes] = hub.client("get nodes -w");
  BOOST_TEST(nodes_status == 2);
  BOOST_TEST(nodes.find("--watch works for clusters, requests and decisions") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
