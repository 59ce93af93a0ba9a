#include "adapters/gpu_trace_workload.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>

using namespace unisched;
using adapters::TracePod;

namespace {

std::vector<TracePod> pods(int count) {
  std::vector<TracePod> list;
  for (int i = 0; i < count; ++i) {
    list.push_back({"pod-" + std::to_string(100 + i), 1000, 1024, 1, i % 2 ? 1000 : 500, {}});
  }
  return list;
}

std::vector<std::string> names(const std::vector<TracePod>& list) {
  std::vector<std::string> out;
  for (const TracePod& pod : list) {
    out.push_back(pod.name);
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(gpu_trace_workload)

BOOST_AUTO_TEST_CASE(the_order_depends_on_the_seed_not_on_the_file_order) {
  const auto base = pods(50);
  auto reversed = base;
  std::reverse(reversed.begin(), reversed.end());
  const auto a = adapters::arrival_order(base, 42, 0, 1);
  BOOST_TEST(names(a) == names(adapters::arrival_order(reversed, 42, 0, 1)),
             boost::test_tools::per_element());
  BOOST_TEST(names(a) != names(adapters::arrival_order(base, 43, 0, 1)));
  BOOST_TEST(a.size() == 50u);  // tune 0: no copies
}

BOOST_AUTO_TEST_CASE(tuning_adds_copies_until_the_load_reaches_the_target) {
  const auto base = pods(50);  // 25 x 500 + 25 x 1000 = 37,500 milli
  const auto tuned = adapters::arrival_order(base, 7, 1.3, 40'000);  // target 52,000
  int64_t requested = 0;
  int64_t before_last = 0;
  for (const TracePod& pod : tuned) {
    before_last = requested;
    requested += adapters::requested_gpu_milli(pod);
  }
  BOOST_TEST(requested >= 52'000);
  BOOST_TEST(before_last < 52'000);  // no copy more than needed
  BOOST_TEST(tuned.size() > 50u);
  BOOST_TEST(tuned[50].name.find("-copy-0") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(pods_become_requests_for_a_share_whole_gpus_or_none) {
  const auto share = adapters::request_for({"s", 6000, 12288, 1, 460, {"V100M16", "V100M32"}});
  BOOST_TEST(*share.resources.cpu.milli_value() == 6000);
  BOOST_TEST(*share.resources.memory.value() == int64_t{12288} << 20);
  BOOST_TEST_REQUIRE(share.resources.accelerators.size() == 1u);
  const auto& gpu = share.resources.accelerators[0];
  BOOST_TEST(gpu.count == 1);
  BOOST_TEST(model::milli_per_device(gpu) == 460);
  BOOST_TEST(model::accepted_models(gpu) == (std::vector<std::string>{"V100M16", "V100M32"}),
             boost::test_tools::per_element());
  const auto whole = adapters::request_for({"w", 12000, 16384, 4, 1000, {"T4"}});
  BOOST_TEST(whole.resources.accelerators[0].count == 4);
  BOOST_TEST(model::milli_per_device(whole.resources.accelerators[0]) == 1000);
  BOOST_TEST(whole.resources.accelerators[0].model == "T4");
  BOOST_TEST(adapters::request_for({"c", 4000, 8192, 0, 0, {}}).resources.accelerators.empty());
  // A request made from a pod is a valid SchedulingRequest.
  model::SchedulingRequest request{{}, share};
  request.metadata.name = "s";
  const auto errors = model::validate_and_default(request);
  BOOST_TEST(errors.empty(), (errors.empty() ? "" : errors.front().to_string()));
}

BOOST_AUTO_TEST_SUITE_END()
