// Kubernetes clusters join a hub beside a simulated one: three test API servers holding the
// recorded real clusters (AKS 1.18 VMs, RKE2 1.31 with an NVIDIA vGPU, OpenShift 4.7 on CRI-O
// with MIG and AMD nodes built from the vendors' label sets), each read by `unisched agent
// --adapter kubernetes` over TLS. The hub's views equal what the servers hold, and the real
// kubectl works against the same server.
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <map>
#include <set>
#include <string>

#include "adapters/kubernetes/api_client.hpp"
#include "adapters/kubernetes/kube_objects.hpp"
#include "tests/hub_process.hpp"
#include "tests/kube_api_process.hpp"

using namespace unisched;
using unisched::testing::ActorHarness;
using unisched::testing::ChildProcess;
using unisched::testing::Hub;
using unisched::testing::Json;
using unisched::testing::k8s_data;
using unisched::testing::KubeApiServer;

namespace {

/// A NodeList of GPU nodes made of the vendors' documented label sets and resource names.
std::string vendor_nodes() {
  const Json mig = unisched::testing::parse_json(
      unisched::testing::read_file(k8s_data("nvidia-mig-a100-gfd-labels-none-single-mixed.json")));
  const Json amd = unisched::testing::parse_json(
      unisched::testing::read_file(k8s_data("amd-gpu-labels-and-resources-doc-examples.json")));
  const auto node = [](const std::string& name, const Json& labels, const Json& extended) {
    Json allocatable = {{"cpu", "64"}, {"memory", "512Gi"}, {"pods", "110"}};
    allocatable.update(extended);
    return Json{{"metadata", {{"name", name}, {"labels", labels}}},
                {"status",
                 {{"allocatable", allocatable},
                  {"conditions", {{{"type", "Ready"}, {"status", "True"}}}},
                  {"nodeInfo",
                   {{"kubeletVersion", "v1.20.0+558d959"},
                    {"containerRuntimeVersion", "cri-o://1.20.3"}}}}}};
  };
  const Json items = {node("mig-mixed", mig["mixed_strategy_3g+2g+1g"]["labels"],
                           mig["mixed_strategy_3g+2g+1g"]["capacity_allocatable"]),
                      node("mig-single", mig["single_strategy_7x1g.5gb"]["labels"],
                           mig["single_strategy_7x1g.5gb"]["capacity_allocatable"]),
                      node("mi300x", amd["mi300x_node_labels"],
                           amd["resource_naming"]["single_unpartitioned_8gpu"])};
  return Json{{"kind", "NodeList"}, {"apiVersion", "v1"}, {"items", items}}.dump();
}

std::unique_ptr<ChildProcess> kube_agent(const Hub& hub, const KubeApiServer& server,
                                         const std::string& id) {
  return std::make_unique<ChildProcess>(
      std::vector<std::string>{unisched::testing::kBinary, "agent", "--hub", hub.address,
                               "--adapter", "kubernetes", "--kubeconfig", server.kubeconfig,
                               "--cluster", id, "--push-interval", "100ms"},
      hub.dir.path() + "/agent-" + id + ".log");
}

/// Per node as the server holds it (Hub::node_view's shape): its nodes read by the adapter's
/// reader, its pods counted.
std::map<std::string, std::pair<int64_t, std::multiset<std::string>>> server_view(
    const KubeApiServer& server) {
  namespace k8s = adapters::kubernetes;
  k8s::ApiClient client(server.access());
  k8s::KubeReader reader;
  const auto nodes =
      reader.node_list(client.call("GET", "/api/v1/nodes", {}, std::chrono::seconds(10)).body)
          .value();
  const auto pods =
      reader.pod_list(client.call("GET", "/api/v1/pods", {}, std::chrono::seconds(10)).body)
          .value();
  std::map<std::string, std::pair<int64_t, std::multiset<std::string>>> view;
  std::vector<std::string> warnings;  // what a sound API server sends gives none
  for (const auto& reading : nodes.items) {
    std::vector<const k8s::PodReading*> on_node;
    for (const auto& pod : pods.items) {
      if (pod.node == reading.node.name) {
        on_node.push_back(&pod);
      }
    }
    const model::NodeState node = k8s::with_pods(reading.node, on_node, warnings);
    auto& entry = view[node.name];
    entry.first = node.allocated_cpu_milli;
    for (const auto& device : node.devices) {
      entry.second.insert(device.model.str());
    }
  }
  return view;
}

void expect_same_view(const Hub& hub, const KubeApiServer& server, const std::string& cluster) {
  ActorHarness::wait_until([&] { return hub.node_view(cluster) == server_view(server); },
                           "the hub's view of " + cluster + " equal to its API server's",
                           std::chrono::seconds(30));
}

/// Runs kubectl with the server's kubeconfig; its exit status and output.
std::pair<int, std::string> kubectl(const KubeApiServer& server, const std::string& args,
                                    int seconds = 20) {
  const std::string out = server.dir.path() + "/kubectl.out";
  const int status = std::system(("timeout " + std::to_string(seconds) + " kubectl --kubeconfig " +
                                  server.kubeconfig + " " + args + " >" + out + " 2>&1")
                                     .c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, unisched::testing::read_file(out)};
}

/// Two nodes with one A100 each; x already runs a small pod (so binpack prefers it).
std::pair<std::string, std::string> lagging_cluster(unisched::testing::ScratchDirectory& dir) {
  const auto gpu_node = [](const std::string& name) {
    return Json{{"metadata",
                 {{"name", name},
                  {"labels",
                   {{"nvidia.com/gpu.product", "A100-SXM4-80GB"},
                    {"nvidia.com/gpu.count", "1"},
                    {"nvidia.com/gpu.memory", "81920"}}}}},
                {"status",
                 {{"allocatable",
                   {{"cpu", "16"}, {"memory", "64Gi"}, {"pods", "110"}, {"nvidia.com/gpu", "1"}}},
                  {"conditions", {{{"type", "Ready"}, {"status", "True"}}}},
                  {"nodeInfo", {{"kubeletVersion", "v1.30.2"}}}}}};
  };
  const Json small_pod = {
      {"metadata", {{"name", "small"}, {"namespace", "default"}}},
      {"spec",
       {{"nodeName", "x"},
        {"containers", {{{"name", "c"}, {"resources", {{"requests", {{"cpu", "4"}}}}}}}}}},
      {"status", {{"phase", "Running"}}}};
  return {dir.write("nodes.json", Json{{"items", {gpu_node("x"), gpu_node("y")}}}.dump()),
          dir.write("pods.json", Json{{"items", {small_pod}}}.dump())};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kube_hub)

BOOST_AUTO_TEST_CASE(three_kubernetes_clusters_join_a_hub_beside_a_simulated_one) {
  unisched::testing::ScratchDirectory data;
  const std::string vendor = data.write("vendor-nodes.json", vendor_nodes());
  KubeApiServer aks({"--nodes", k8s_data("aks-nodelist-3nodes.json")});
  KubeApiServer rke2({"--nodes", k8s_data("rke2-vgpu-a16-nodelist.json")});
  KubeApiServer openshift({"--nodes", k8s_data("openshift47-node-worker0.json"), "--nodes", vendor,
                           "--pods", k8s_data("openshift-insights-podlist-assembled.json")});
  Hub hub;
  const auto sim = hub.agent("t4-vm-useast.yaml");
  const auto aks_agent = kube_agent(hub, aks, "aks-118");
  const auto rke2_agent = kube_agent(hub, rke2, "rke2-131");
  const auto openshift_agent = kube_agent(hub, openshift, "openshift-47");
  for (const char* id : {"aks-118", "rke2-131", "openshift-47", "t4-useast"}) {
    ActorHarness::wait_until([&] { return hub.has_health(id, true); },
                             std::string(id) + " healthy at the hub", std::chrono::seconds(30));
  }
  for (const auto& [server, id] : {std::pair{&aks, "aks-118"}, std::pair{&rke2, "rke2-131"},
                                   std::pair{&openshift, "openshift-47"}}) {
    expect_same_view(hub, *server, id);
    BOOST_TEST(!hub.cluster(id)->value("view_only", true), id);  // it carries out placements
  }
  const auto gpus = hub.node_view("openshift-47");
  BOOST_TEST(gpus.at("mi300x").second.count("AMD_Instinct_MI300X_OAM") == 8u);
  BOOST_TEST(gpus.at("mig-mixed").second.count("A100-SXM4-40GB-MIG-3g.20gb") == 1u);
  BOOST_TEST(gpus.at("mig-single").second.count("A100-SXM4-40GB-MIG-1g.5gb") == 7u);
  size_t vgpus = 0;
  for (const auto& [name, node] : hub.node_view("rke2-131")) {
    vgpus += node.second.count("NVIDIA-A16-4Q");
  }
  BOOST_TEST(vgpus == 1u);
  // kubectl against the same server: what it creates, the hub sees counted on the node.
  const auto listed = kubectl(aks, "get nodes -o json");
  BOOST_TEST(listed.first == 0, listed.second);
  BOOST_TEST(listed.second.find("aks-agentpool-30520393-vmss000001") != std::string::npos);
  BOOST_TEST(kubectl(aks, "get pods -A -o json").first == 0);
  const std::string pod = aks.dir.write(
      "pod.yaml",
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: from-kubectl\nspec:\n  nodeName: "
      "aks-agentpool-30520393-vmss000001\n  containers:\n  - name: c\n    image: nginx\n"
      "    resources:\n      requests:\n        cpu: 900m\n        memory: 1Gi\n");
  const auto created = kubectl(aks, "create -f " + pod);
  BOOST_TEST(created.first == 0, created.second);
  BOOST_TEST(created.second.find("pod/from-kubectl created") != std::string::npos);
  const auto watched = kubectl(aks, "get pods -w", 3);  // a watch: ended by the timeout
  BOOST_TEST(watched.second.find("from-kubectl") != std::string::npos, watched.second);
  expect_same_view(hub, aks, "aks-118");
  BOOST_TEST(hub.node_view("aks-118").at("aks-agentpool-30520393-vmss000001").first == 900);
  // A request for the vGPU, with its pod template, runs as a pod on the RKE2 cluster's GPU node.
  const std::string request = hub.dir.write(
      "infer.yaml",
      "apiVersion: scheduling.cluster.io/v1\nkind: SchedulingRequest\nmetadata:\n  name: infer\n"
      "spec:\n  resources:\n    cpu: 500m\n    memory: 1Gi\n    accelerators:\n"
      "      - type: nvidia.com/gpu\n        model: A16-4Q\n        count: 1\n"
      "  template:\n    metadata:\n      labels: {app: infer}\n"
      "    spec:\n      containers:\n        - name: server\n          image: triton:24.01\n");
  const auto [placed, decision] = hub.client("submit -f " + request + " --wait --timeout 30s");
  BOOST_TEST(placed == 0, decision);
  BOOST_TEST(decision.find("placed") != std::string::npos, decision);
  const auto bound = kubectl(rke2, "get pods -A -o json");
  BOOST_TEST(bound.second.find("\"app\": \"infer\"") != std::string::npos, bound.second);
  BOOST_TEST(bound.second.find("\"nvidia.com/gpu\": \"1\"") != std::string::npos);
  BOOST_TEST(bound.second.find("\"phase\": \"Running\"") != std::string::npos);
  expect_same_view(hub, rke2, "rke2-131");
  ActorHarness::wait_until(
      [&] {
        const auto [status, text] = hub.client("describe cluster rke2-131");
        return text.find("Placements:    1 confirmed") != std::string::npos;
      },
      "the pod confirmed as the placement", std::chrono::seconds(20));
  BOOST_TEST(hub.process->stop() == 0);
}

BOOST_AUTO_TEST_CASE(a_kubelet_refusal_places_the_replica_again_on_another_node) {
  unisched::testing::ScratchDirectory data;
  const auto [nodes, pods] = lagging_cluster(data);
  KubeApiServer server({"--nodes", nodes, "--pods", pods});
  Hub hub(0, {"--policy", "binpack"});
  const auto agent = kube_agent(hub, server, "lagging");
  ActorHarness::wait_until([&] { return hub.has_health("lagging", true); }, "healthy at the hub",
                           std::chrono::seconds(30));
  expect_same_view(hub, server, "lagging");
  // The adapter's watch lags: a pod that takes x's GPU is created behind its back, so the hub
  // still sees x free, and binpack prefers x.
  server.control("hold-watches");
  const std::string hidden = server.dir.write(
      "hidden.yaml",
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: hidden\nspec:\n  nodeName: x\n"
      "  containers:\n  - name: c\n    image: cuda\n    resources:\n      limits:\n"
      "        nvidia.com/gpu: 1\n");
  const auto created = kubectl(server, "create -f " + hidden);
  BOOST_TEST_REQUIRE(created.first == 0, created.second);
  const std::string request = hub.dir.write(
      "job.yaml",
      "apiVersion: scheduling.cluster.io/v1\nkind: SchedulingRequest\nmetadata:\n  name: job\n"
      "spec:\n  resources:\n    cpu: \"1\"\n    memory: 1Gi\n    accelerators:\n"
      "      - type: nvidia.com/gpu\n        model: A100\n        count: 1\n");
  const auto [submitted, accepted] = hub.client("submit -f " + request);
  BOOST_TEST_REQUIRE(submitted == 0, accepted);
  ActorHarness::wait_until(
      [&] { return hub.decided_nodes("job") == std::multiset<std::string>{"x"}; },
      "placed on x first", std::chrono::seconds(20));
  // The kubelet fails the replica's pod on x (the server admits by what really runs there).
  // The adapter learns it from its watch, so nothing moves until the watch catches up.
  ActorHarness::wait_until(
      [&] {
        return kubectl(server, "get pods -o json").second.find("OutOfnvidia.com/gpu") !=
               std::string::npos;
      },
      "the kubelet's refusal on x", std::chrono::seconds(20));
  BOOST_TEST((hub.decided_nodes("job") == std::multiset<std::string>{"x"}));
  server.control("release-watches");
  // The refusal reaches the scheduler, which places the replica again, elsewhere.
  ActorHarness::wait_until(
      [&] { return hub.decided_nodes("job") == std::multiset<std::string>{"y"}; },
      "placed again on y", std::chrono::seconds(30));
  const std::string reasons = hub.decision("job").value("reasons", Json::array()).dump();
  BOOST_TEST(reasons.find("replica job/0 was refused by its cluster") != std::string::npos,
             reasons);
  BOOST_TEST(reasons.find("OutOfnvidia.com/gpu") != std::string::npos, reasons);
  // The hub's view is the server's again: the hidden pod on x, the replica's pod on y.
  expect_same_view(hub, server, "lagging");
  ActorHarness::wait_until(
      [&] {
        const Json listed =
            unisched::testing::parse_json(kubectl(server, "get pods -o json").second);
        int running_on_y = 0;
        for (const auto& pod : listed.value("items", Json::array())) {
          running_on_y += pod["spec"].value("nodeName", "") == "y" &&
                          pod["status"].value("phase", "") == "Running";
        }
        return running_on_y == 1;
      },
      "the replica's pod running on y", std::chrono::seconds(20));
  BOOST_TEST(hub.process->stop() == 0);
}

// Issue 66, item 6: a relist whose continue never ends left its cluster healthy while the
// agent's view stood still. Failing for 10 s (the default) is trouble the agent reports: the
// cluster takes no work until its API server answers again, and its view is then pulled whole.
BOOST_AUTO_TEST_CASE(a_cluster_whose_api_server_keeps_failing_is_unhealthy_until_it_answers) {
  KubeApiServer server({"--generate-nodes", "3"});
  Hub hub;
  const auto agent = kube_agent(hub, server, "failing");
  ActorHarness::wait_until([&] { return hub.has_health("failing", true); }, "healthy at the hub",
                           std::chrono::seconds(30));
  server.control("hostile", {{"mode", "endless-continue"}});
  server.control("compact");  // the watch ends with 410: the nodes must be listed again
  ActorHarness::wait_until([&] { return hub.has_health("failing", false); },
                           "unhealthy while its lists fail", std::chrono::seconds(60));
  BOOST_TEST(hub.process->output().find("its agent reports: listing ") != std::string::npos,
             hub.process->output());
  server.control("hostile", {{"mode", ""}});
  ActorHarness::wait_until([&] { return hub.has_health("failing", true); },
                           "healthy once its API server answers", std::chrono::seconds(60));
  expect_same_view(hub, server, "failing");
}

BOOST_AUTO_TEST_SUITE_END()
