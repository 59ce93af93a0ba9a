#include "policy/node_fit.hpp"

#include <boost/test/unit_test.hpp>

#include "tests/policy_fixtures.hpp"

using namespace unisched;
using namespace unisched::policy;
using testing::node;

namespace {

ReplicaDemand gpus(int count, std::optional<model::Interconnect> link = std::nullopt,
                   const std::string& model = "", int64_t min_gib = 0) {
  ReplicaDemand demand;
  demand.cpu_milli = 1000;
  demand.memory_bytes = int64_t{1} << 30;
  DeviceDemand device;
  if (!model.empty()) {
    device.models = {model};
  }
  device.count = count;
  device.min_memory_bytes = min_gib << 30;
  device.link = link;
  demand.devices.push_back(std::move(device));
  return demand;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(node_fit)

BOOST_AUTO_TEST_CASE(first_misfit_is_named) {
  ReplicaDemand demand;
  demand.cpu_milli = 2000;
  demand.memory_bytes = int64_t{4} << 30;
  demand.host_ports = {8080};
  struct Case {
    const char* what;
    model::NodeState node;
    std::optional<NodeMisfit> misfit;
  };
  auto cordoned = node("n", 4000, 16);
  cordoned.schedulable = false;
  auto full = node("n", 4000, 16);
  full.pod_count = full.max_pods;
  auto busy_port = node("n", 4000, 16);
  busy_port.host_ports_in_use = {80, 8080};
  const Case cases[] = {
      {"fits", node("n", 4000, 16), std::nullopt},
      {"cordoned", cordoned, NodeMisfit::Unschedulable},
      {"no pod slot", full, NodeMisfit::Pods},
      {"cpu", node("n", 1999, 16), NodeMisfit::Cpu},
      {"memory", node("n", 4000, 3), NodeMisfit::Memory},
      {"port", busy_port, NodeMisfit::HostPort},
  };
  for (const Case& c : cases) {
    const NodeFit fit = fit_on_node(c.node, demand);
    BOOST_TEST((fit.misfit == c.misfit), c.what);
  }
}

BOOST_AUTO_TEST_CASE(linked_devices_come_from_one_group) {
  auto n = node("n", 64000, 512);
  // Two NVLink groups of 4 devices; group 0 has one device busy.
  for (int i = 0; i < 8; ++i) {
    n.devices.push_back(unisched::testing::gpu_device(
        "A100", int64_t{80} << 30, i < 4 ? 0 : 1, model::Interconnect::NVLink, i == 0 ? 1000 : 0));
  }
  const NodeFit three = fit_on_node(n, gpus(3, model::Interconnect::NVLink));
  BOOST_TEST_REQUIRE(three.fits());
  BOOST_TEST(three.devices == (DeviceList{1, 2, 3}));  // best fit: the smaller group
  const NodeFit four = fit_on_node(n, gpus(4, model::Interconnect::NVLink));
  BOOST_TEST(four.devices == (DeviceList{4, 5, 6, 7}));
  BOOST_TEST((fit_on_node(n, gpus(5, model::Interconnect::NVLink)).misfit == NodeMisfit::Devices));
  BOOST_TEST(fit_on_node(n, gpus(7)).fits());  // without a link requirement groups may mix
}

BOOST_AUTO_TEST_CASE(a_node_of_more_devices_than_it_holds_inline_offers_every_one) {
  // A node holds eight devices in its own room and spills more to the heap.
  auto n = node("n", 64000, 512, 16, model::Interconnect::NVSwitch);
  for (size_t i = 0; i < 8; ++i) {
    n.devices[i].allocated_milli = model::kWholeDeviceMilli;
  }
  const ReplicaDemand eight = gpus(8, model::Interconnect::NVLink);
  const NodeFit fit = fit_on_node(n, eight);
  BOOST_TEST_REQUIRE(fit.fits());
  BOOST_TEST(fit.devices == (DeviceList{8, 9, 10, 11, 12, 13, 14, 15}));
  take(n, eight, fit);
  BOOST_TEST(n.free_devices("A100") == 0);
  const model::NodeState copy = n;
  BOOST_TEST(copy.devices.size() == 16u);
  BOOST_TEST((copy == n));
}

BOOST_AUTO_TEST_CASE(model_memory_and_link_quality) {
  const auto pcie = node("p", 8000, 64, 4, model::Interconnect::PCIe, "T4", 16);
  BOOST_TEST(fit_on_node(pcie, gpus(2)).fits());
  BOOST_TEST(!fit_on_node(pcie, gpus(2, model::Interconnect::NVLink)).fits());
  BOOST_TEST(!fit_on_node(pcie, gpus(1, std::nullopt, "A100")).fits());
  BOOST_TEST(!fit_on_node(pcie, gpus(1, std::nullopt, "", 24)).fits());
  BOOST_TEST(fit_on_node(pcie, gpus(1, std::nullopt, "T4", 16)).fits());
  const auto nvswitch = node("s", 8000, 64, 8, model::Interconnect::NVSwitch, "H100");
  BOOST_TEST(fit_on_node(nvswitch, gpus(8, model::Interconnect::NVLink)).fits());
}

BOOST_AUTO_TEST_CASE(two_device_demands_never_share_a_device) {
  auto n = node("n", 8000, 64, 3, model::Interconnect::PCIe);
  ReplicaDemand demand = gpus(2);
  demand.devices.push_back(demand.devices[0]);
  BOOST_TEST((fit_on_node(n, demand).misfit == NodeMisfit::Devices));  // 4 wanted, 3 there
  demand.devices[1].count = 1;
  const NodeFit fit = fit_on_node(n, demand);
  BOOST_TEST_REQUIRE(fit.fits());
  BOOST_TEST(fit.devices.size() == 3u);
  take(n, demand, fit);
  BOOST_TEST(n.free_devices("A100") == 0);
  BOOST_TEST(n.allocated_cpu_milli == 1000);
}

BOOST_AUTO_TEST_CASE(shares_go_to_the_busiest_device_that_holds_them_and_add_up) {
  auto n = node("n", 64000, 256, 3, model::Interconnect::PCIe);
  n.devices[1].allocated_milli = 500;
  n.devices[2].allocated_milli = 700;
  ReplicaDemand share = gpus(1);
  share.devices[0].milli = 300;
  // Device 2 has 300 idle: the least that still holds the share.
  NodeFit fit = fit_on_node(n, share);
  BOOST_TEST_REQUIRE(fit.fits());
  BOOST_TEST(fit.devices == DeviceList{2});
  BOOST_TEST(fit.device_milli == DeviceList{300});
  take(n, share, fit);
  BOOST_TEST(n.devices[2].allocated_milli == 1000);
  // Next, device 1 (500 idle); whole devices never go to a device in part used.
  fit = fit_on_node(n, share);
  BOOST_TEST(fit.devices == DeviceList{1});
  take(n, share, fit);
  BOOST_TEST(n.devices[1].allocated_milli == 800);
  const ReplicaDemand two_whole = gpus(2);
  BOOST_TEST((fit_on_node(n, two_whole).misfit == NodeMisfit::Devices));
  const NodeFit whole = fit_on_node(n, gpus(1));
  BOOST_TEST(whole.devices == DeviceList{0});
  BOOST_TEST(whole.device_milli == DeviceList{1000});
  // 200 idle on device 1 and 1000 on device 0: a share of 300 takes device 0.
  BOOST_TEST(fit_on_node(n, share).devices == DeviceList{0});
}

BOOST_AUTO_TEST_CASE(a_share_is_not_asked_of_a_node_that_counts_devices_whole) {
  auto n = node("k8s", 64000, 256, 2, model::Interconnect::PCIe);
  ReplicaDemand share = gpus(1);
  share.devices[0].milli = 500;
  BOOST_TEST(fit_on_node(n, share).fits());
  n.labels.set(model::kWholeDevicesLabel, "true");
  BOOST_TEST((fit_on_node(n, share).misfit == NodeMisfit::WholeDevicesOnly));
  BOOST_TEST(std::string(describe(NodeMisfit::WholeDevicesOnly)).find("whole units") !=
             std::string::npos);
  BOOST_TEST(fit_on_node(n, gpus(2)).fits());  // whole devices still do
}

BOOST_AUTO_TEST_CASE(any_of_the_models_asked_for_will_do) {
  auto n = node("n", 64000, 256, 1, model::Interconnect::PCIe, "V100M32");
  ReplicaDemand demand = gpus(1);
  demand.devices[0].models = {"V100M16"};
  BOOST_TEST((fit_on_node(n, demand).misfit == NodeMisfit::Devices));
  demand.devices[0].models = {"V100M16", "V100M32"};
  BOOST_TEST(fit_on_node(n, demand).fits());
}

BOOST_AUTO_TEST_SUITE_END()
