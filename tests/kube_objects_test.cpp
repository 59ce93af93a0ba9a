// Nodes and Pods read from the Kubernetes API's JSON: the recorded real objects in
// ../shared/data/k8s-api (AKS, RKE2 with an NVIDIA vGPU, OpenShift on CRI-O, EKS arm64, the
// MIG and AMD label sets), watch events, Status bodies, and malformed input.
#include "adapters/kubernetes/kube_objects.hpp"

#include <algorithm>
#include <boost/test/unit_test.hpp>

#include <string>

#include "model/cluster_view.hpp"
#include "tests/json.hpp"
#include "tests/shared_data.hpp"
#include "tests/test_files.hpp"

using namespace unisched;
using namespace unisched::adapters::kubernetes;
using unisched::testing::Json;

namespace {

std::string k8s_file(const std::string& name) {
  return unisched::testing::read_file(unisched::testing::vendored_path("k8s-api/" + name).string());
}

ObjectList<NodeReading> nodes_of(KubeReader& reader, const std::string& json) {
  auto list = reader.node_list(json);
  if (!list) {
    BOOST_FAIL(list.error());
  }
  return std::move(list.value());
}

ObjectList<PodReading> pods_of(KubeReader& reader, const std::string& json) {
  auto list = reader.pod_list(json);
  if (!list) {
    BOOST_FAIL(list.error());
  }
  return std::move(list.value());
}

/// A one-node NodeList with these labels and allocatable resources, Ready.
std::string node_list(const Json& labels, const Json& allocatable) {
  Json resources = {{"cpu", "64"}, {"memory", "512Gi"}, {"pods", "110"}};
  resources.update(allocatable);
  const Json node = {
      {"metadata", {{"name", "gpu-node"}, {"labels", labels}}},
      {"status",
       {{"allocatable", resources}, {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}};
  return Json{{"kind", "NodeList"}, {"metadata", {{"resourceVersion", "7"}}}, {"items", {node}}}
      .dump();
}

const model::NodeState& only_node(const ObjectList<NodeReading>& list) {
  BOOST_TEST_REQUIRE(list.items.size() == 1u);
  return list.items[0].node;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kube_objects)

BOOST_AUTO_TEST_CASE(aks_vms_are_read_with_their_zone_pool_and_provider) {
  KubeReader reader;
  const auto list = nodes_of(reader, k8s_file("aks-nodelist-3nodes.json"));
  BOOST_TEST_REQUIRE(list.items.size() == 3u);
  BOOST_TEST(list.skipped.empty());
  const model::NodeState& node = list.items[1].node;
  BOOST_TEST(node.name == "aks-agentpool-30520393-vmss000001");
  BOOST_TEST(node.allocatable_cpu_milli == 1900);
  BOOST_TEST(node.allocatable_memory_bytes == int64_t{5497568} * 1024);
  BOOST_TEST(node.max_pods == 110);
  BOOST_TEST(node.devices.empty());  // attachable-volumes-azure-disk is no device
  BOOST_TEST(node.node_group == "agentpool");
  BOOST_TEST(node.labels.at("topology.kubernetes.io/zone") == "1");
  BOOST_TEST(node.labels.at("topology.kubernetes.io/region") == "southcentralus");
  BOOST_TEST(node.labels.count("unisched.io/kubelet-version") == 1u);
  BOOST_TEST(node.schedulable);
}

BOOST_AUTO_TEST_CASE(an_nvidia_vgpu_is_a_device_of_its_own_model) {
  KubeReader reader;
  const auto list = nodes_of(reader, k8s_file("rke2-vgpu-a16-nodelist.json"));
  const model::NodeState* gpu_node = nullptr;
  for (const auto& reading : list.items) {
    gpu_node = reading.node.devices.empty() ? gpu_node : &reading.node;
  }
  BOOST_TEST_REQUIRE(gpu_node != nullptr);
  BOOST_TEST_REQUIRE(gpu_node->devices.size() == 1u);
  const model::Device& device = gpu_node->devices[0];
  BOOST_TEST(device.model.str() == "NVIDIA-A16-4Q");
  BOOST_TEST(device.resource.str() == "nvidia.com/gpu");
  BOOST_TEST((device.type == model::AcceleratorType::GPU));
  BOOST_TEST(gpu_node->labels.at("unisched.io/kubelet-version") == "v1.31.6+rke2r1");
  BOOST_TEST(gpu_node->labels.at("unisched.io/container-runtime") == "containerd://2.0.2-k3s2");
  BOOST_TEST(gpu_node->labels.at("unisched.io/provider") == "rke2");
  BOOST_TEST(gpu_node->labels.at(model::kWholeDevicesLabel) == "true");  // no shares here
}

BOOST_AUTO_TEST_CASE(openshift_and_eks_arm64_nodes_are_read) {
  KubeReader reader;
  // A single Node object is no list; its watch event carries the same object.
  const std::string worker = k8s_file("openshift47-node-worker0.json");
  const auto listed = nodes_of(reader, "{\"kind\":\"NodeList\",\"items\":[" + worker + "]}");
  BOOST_TEST(only_node(listed).labels.at("unisched.io/container-runtime").rfind("cri-o://", 0) ==
             0u);
  const auto eks = nodes_of(reader, k8s_file("eks-arm64-nodelist-honeycomb.json"));
  BOOST_TEST_REQUIRE(!eks.items.empty());
  BOOST_TEST(eks.items[0].node.labels.at("unisched.io/arch") == "arm64");
  BOOST_TEST(eks.items[0].node.labels.at("unisched.io/provider") == "aws");
}

BOOST_AUTO_TEST_CASE(mig_strategies_give_slices_as_their_own_devices) {
  KubeReader reader;
  const Json doc =
      unisched::testing::parse_json(k8s_file("nvidia-mig-a100-gfd-labels-none-single-mixed.json"));
  const auto node_for = [&](const char* strategy) {
    return only_node(nodes_of(
        reader, node_list(doc[strategy]["labels"], doc[strategy]["capacity_allocatable"])));
  };
  const model::NodeState none = node_for("none_strategy");
  BOOST_TEST_REQUIRE(none.devices.size() == 1u);
  BOOST_TEST(none.devices[0].model.str() == "A100-SXM4-40GB");
  BOOST_TEST(none.devices[0].memory_bytes == int64_t{40537} << 20);  // gpu.memory, MiB
  // "single": the product and memory labels describe the slice; nvidia.com/gpu counts slices.
  const model::NodeState single = node_for("single_strategy_7x1g.5gb");
  BOOST_TEST_REQUIRE(single.devices.size() == 7u);
  BOOST_TEST(single.devices[6].model.str() == "A100-SXM4-40GB-MIG-1g.5gb");
  BOOST_TEST(single.devices[6].memory_bytes == int64_t{4864} << 20);
  // "mixed": one resource per profile; the 3g slice's labels say 21gb, its resource 20gb.
  const model::NodeState mixed = node_for("mixed_strategy_3g+2g+1g");
  BOOST_TEST_REQUIRE(mixed.devices.size() == 3u);
  BOOST_TEST(mixed.devices[0].resource.str() == "nvidia.com/mig-1g.5gb");
  BOOST_TEST(mixed.devices[0].model.str() == "A100-SXM4-40GB-MIG-1g.5gb");
  BOOST_TEST(mixed.devices[0].memory_bytes == int64_t{4864} << 20);
  BOOST_TEST(mixed.devices[2].model.str() == "A100-SXM4-40GB-MIG-3g.20gb");
  BOOST_TEST(mixed.devices[2].memory_bytes == 20'000'000'000);  // from the name: a lower bound
}

BOOST_AUTO_TEST_CASE(amd_gpus_and_partitions_are_devices_named_by_the_product) {
  KubeReader reader;
  const Json doc =
      unisched::testing::parse_json(k8s_file("amd-gpu-labels-and-resources-doc-examples.json"));
  const Json& labels = doc["mi300x_node_labels"];
  const model::NodeState whole = only_node(
      nodes_of(reader, node_list(labels, doc["resource_naming"]["single_unpartitioned_8gpu"])));
  BOOST_TEST_REQUIRE(whole.devices.size() == 8u);
  BOOST_TEST(whole.devices[0].model.str() == "AMD_Instinct_MI300X_OAM");
  BOOST_TEST(whole.devices[0].memory_bytes == 192'000'000'000);
  const model::NodeState mixed =
      only_node(nodes_of(reader, node_list(labels, doc["resource_naming"]["mixed_heterogeneous"])));
  BOOST_TEST(mixed.devices.size() == 29u);  // 24 cpx_nps1 + 5 spx_nps1
  BOOST_TEST(mixed.devices[0].model.str() == "AMD_Instinct_MI300X_OAM-cpx_nps1");
  BOOST_TEST(mixed.devices[28].resource.str() == "amd.com/spx_nps1");
}

BOOST_AUTO_TEST_CASE(a_node_the_api_server_could_never_hold_is_skipped_not_its_cluster) {
  // 40 MIG resources of 1,024 slices each wrapped a device's 16-bit topology group, and the hub
  // refused the whole cluster's snapshot (issue 66, item 5).
  KubeReader reader;
  Json many = Json::object();
  for (int i = 0; i < 40; ++i) {
    many["nvidia.com/mig-" + std::to_string(i) + "g.10gb"] = "1024";
  }
  const auto huge = nodes_of(reader, node_list(Json::object(), many));
  BOOST_TEST(huge.items.empty());
  BOOST_TEST_REQUIRE(huge.skipped.size() == 1u);
  BOOST_TEST(huge.skipped[0].find("40960 devices in all, more than the 4096") != std::string::npos,
             huge.skipped[0]);
  // A name Kubernetes would refuse (here with an escape sequence) never enters (item 7).
  std::string bad_name = node_list(Json::object(), Json::object());
  bad_name.replace(bad_name.find("gpu-node"), 8, "evil\\u001b[2J");  // JSON's escape
  const auto named = nodes_of(reader, bad_name);
  BOOST_TEST(named.items.empty());
  BOOST_TEST_REQUIRE(named.skipped.size() == 1u);
  BOOST_TEST(
      named.skipped[0].find("metadata.name: Invalid value: \"evil\\x1b[2J\"") != std::string::npos,
      named.skipped[0]);
  // A kept label longer than the API server allows is left out, and the node kept.
  const auto labelled =
      nodes_of(reader, node_list({{"unisched.io/rack", std::string(10 << 20, 'r')},
                                  {"topology.kubernetes.io/zone", "zone-a"}},
                                 Json::object()));
  BOOST_TEST_REQUIRE(labelled.items.size() == 1u);
  const model::NodeState& node = labelled.items[0].node;
  BOOST_TEST(node.labels.count("unisched.io/rack") == 0u);
  BOOST_TEST(node.labels.at("topology.kubernetes.io/zone") == "zone-a");
  BOOST_TEST_REQUIRE(labelled.items[0].notes.size() == 1u);
  BOOST_TEST(labelled.items[0].notes[0].find("metadata.labels[\"unisched.io/rack\"]: left out") ==
             0u);
}

BOOST_AUTO_TEST_CASE(pods_request_by_kubernetes_rule) {
  KubeReader reader;
  const Json pod = {
      {"metadata",
       {{"name", "p"}, {"namespace", "ns"}, {"annotations", {{kPlacementAnnotation, "r/0"}}}}},
      {"spec",
       {{"nodeName", "n1"},
        {"containers",
         {{{"name", "a"},
           {"resources", {{"requests", {{"cpu", "100m"}, {"memory", "1Gi"}}}}},
           {"ports", {{{"containerPort", 80}, {"hostPort", 8080}}}}},
          {{"name", "b"},
           {"resources", {{"limits", {{"cpu", "200m"}, {"nvidia.com/gpu", "2"}}}}}}}},
        {"initContainers",
         {{{"name", "sidecar"},
           {"restartPolicy", "Always"},
           {"resources", {{"requests", {{"cpu", "50m"}}}}}},
          {{"name", "setup"},
           {"resources", {{"requests", {{"cpu", "500m"}, {"memory", "2Gi"}}}}}}}},
        {"overhead", {{"cpu", "10m"}}}}},
      {"status", {{"phase", "Running"}}}};
  const auto list = pods_of(reader, Json{{"kind", "PodList"}, {"items", {pod}}}.dump());
  BOOST_TEST_REQUIRE(list.items.size() == 1u);
  const PodReading& read = list.items[0];
  // Containers and sidecar: 350m; the init step beside the sidecar: 550m; plus 10m overhead.
  BOOST_TEST(read.cpu_milli == 560);
  BOOST_TEST(read.memory_bytes == int64_t{2} << 30);    // the init step's 2Gi beats 1Gi
  BOOST_TEST(read.extended.at("nvidia.com/gpu") == 2);  // a limit without a request
  BOOST_TEST(read.host_ports == std::vector<int32_t>{8080});
  BOOST_TEST(read.placement_id == "r/0");
  BOOST_TEST(read.key == "ns/p");
}

BOOST_AUTO_TEST_CASE(real_pods_count_on_their_nodes) {
  KubeReader reader;
  const auto gpu_pods = pods_of(reader, k8s_file("nvsentinel-kubelet-podlist-gpu-job.json"));
  BOOST_TEST_REQUIRE(gpu_pods.items.size() == 2u);
  model::NodeState node;
  node.name = "10.0.15.229";
  node.allocatable_cpu_milli = 8000;
  node.allocatable_memory_bytes = int64_t{32} << 30;
  node.max_pods = 110;
  for (int i = 0; i < 2; ++i) {
    model::Device device;
    device.resource = model::Symbol(std::string("nvidia.com/gpu"));
    device.model = model::Symbol(std::string("A100-SXM4-80GB"));
    node.devices.push_back(device);
  }
  std::vector<const PodReading*> pods;
  for (const PodReading& pod : gpu_pods.items) {
    pods.push_back(&pod);
  }
  std::vector<std::string> warnings;
  const model::NodeState counted = with_pods(node, pods, warnings);
  BOOST_TEST(warnings.empty());
  BOOST_TEST(counted.pod_count == 1);  // the other pod Succeeded
  BOOST_TEST(counted.devices[0].allocated_milli == model::kWholeDeviceMilli);
  BOOST_TEST(counted.devices[1].allocated_milli == 0);
  const auto eks_pods = pods_of(reader, k8s_file("eks-arm64-podlist-honeycomb.json"));
  BOOST_TEST(eks_pods.items.size() == 11u);
  BOOST_TEST(eks_pods.skipped.empty());
}

BOOST_AUTO_TEST_CASE(pods_asking_more_than_their_node_neither_wrap_nor_overfill_it) {
  // Four pods of 4Ei memory on a 64Gi node wrapped its sum to 0 (issue 66, item 4); two of 7Ei
  // made it negative, and the hub refused the whole cluster.
  model::NodeState node;
  node.name = "worker-1";
  node.allocatable_cpu_milli = 16000;
  node.allocatable_memory_bytes = int64_t{64} << 30;
  node.max_pods = 110;
  std::vector<PodReading> huge(4);
  for (size_t i = 0; i < huge.size(); ++i) {
    huge[i].key = "ns/huge-" + std::to_string(i);
    huge[i].memory_bytes = int64_t{4} << 60;
  }
  PodReading gpus;
  gpus.key = "ns/gpus";
  gpus.extended["nvidia.com/gpu"] = int64_t{1} << 62;  // the node has no such device
  PodReading real;
  real.key = "ns/real";
  real.cpu_milli = 500;
  real.memory_bytes = int64_t{1} << 30;
  std::vector<const PodReading*> pods = {&huge[0], &huge[1], &huge[2], &huge[3], &gpus, &real};
  std::vector<std::string> warnings;
  const model::NodeState counted = with_pods(node, pods, warnings);
  BOOST_TEST(counted.allocated_memory_bytes == int64_t{1} << 30);
  BOOST_TEST(counted.allocated_cpu_milli == 500);
  BOOST_TEST(counted.pod_count == 1);
  BOOST_TEST_REQUIRE(warnings.size() == 5u);
  BOOST_TEST(
      warnings[0].find("pod ns/huge-0 asks more than its node worker-1 offers (memory") == 0u,
      warnings[0]);
  BOOST_TEST(warnings[4].find("pod ns/gpus ") == 0u, warnings[4]);
  BOOST_TEST(!model::check_node(counted).has_value());
  // Pods that each fit but together ask more than the node offers make it full, not over-full.
  PodReading big = real;
  big.memory_bytes = int64_t{40} << 30;
  PodReading other = big;
  other.key = "ns/other";
  warnings.clear();
  const model::NodeState full = with_pods(node, {&big, &other}, warnings);
  BOOST_TEST(full.allocated_memory_bytes == node.allocatable_memory_bytes);
  BOOST_TEST(full.pod_count == 2);
  BOOST_TEST_REQUIRE(warnings.size() == 1u);
  BOOST_TEST(warnings[0] ==
             "node worker-1: its pods together ask more than it offers; counted as full");
  BOOST_TEST(!model::check_node(full).has_value());
}

BOOST_AUTO_TEST_CASE(watch_events_bookmarks_and_expiry_are_told_apart) {
  KubeReader reader;
  std::istringstream control(k8s_file("watch-control-events-constructed.ndjson"));
  std::string line;
  std::vector<WatchEvent<PodReading>> events;
  while (std::getline(control, line)) {
    auto event = reader.pod_event(line);
    if (!event) {
      BOOST_FAIL(event.error());
    }
    events.push_back(std::move(event.value()));
  }
  BOOST_TEST_REQUIRE(events.size() == 4u);
  BOOST_TEST((events[1].type == WatchEventType::Bookmark));  // "containers": null tolerated
  BOOST_TEST(events[1].resource_version == "12746");
  BOOST_TEST((events[2].type == WatchEventType::Error));
  BOOST_TEST(events[2].status->code == 410);
  BOOST_TEST(events[3].status->code == 410);  // whatever the reason says
  std::istringstream bound(k8s_file("pulumi-pod-create-bind-run.watch.ndjson"));
  std::getline(bound, line);
  std::getline(bound, line);
  const auto modified = reader.pod_event(line);
  BOOST_TEST_REQUIRE(modified.has_value());
  BOOST_TEST(!modified->object->node.empty());  // bound
  const auto node_event =
      reader.node_event(k8s_file("kubeclient-watch-event-node-openshift37.ndjson"));
  BOOST_TEST_REQUIRE(node_event.has_value());
  BOOST_TEST(node_event->object->node.name == "openshift.local");
  const auto expired = reader.pod_list(k8s_file("kubeclient-list-410-expired-status.json"));
  BOOST_TEST_REQUIRE(!expired.has_value());
  BOOST_TEST(expired.error().find("410 Expired") != std::string::npos);
  BOOST_TEST(reader.status(k8s_file("kubeclient-list-410-expired-status.json"))->code == 410);
}

// Found by fuzzing (tests/fuzz/regressions/kube_json/crash-35e890...): the memory in a MIG
// profile's name overflowed, and the node read had a negative device memory.
BOOST_AUTO_TEST_CASE(a_mig_profile_with_an_absurd_memory_is_read_as_unknown_memory) {
  KubeReader reader;
  const Json node = {{"metadata", {{"name", "mig"}}},
                     {"status",
                      {{"allocatable",
                        {{"cpu", "4"},
                         {"memory", "8Gi"},
                         {"nvidia.com/mig-1g.40000000000000000000gb", "1"},
                         {"nvidia.com/mig-3g.20gb", "1"}}}}}};
  const auto list = nodes_of(reader, Json{{"kind", "NodeList"}, {"items", {node}}}.dump());
  BOOST_TEST_REQUIRE(list.items.size() == 1u);
  const auto& devices = list.items[0].node.devices;
  BOOST_TEST_REQUIRE(devices.size() == 2u);
  for (const auto& device : devices) {
    BOOST_TEST(device.memory_bytes >= 0);
  }
  const bool has_20gb = std::any_of(devices.begin(), devices.end(), [](const auto& device) {
    return device.memory_bytes == int64_t{20'000'000'000};
  });
  BOOST_TEST(has_20gb);  // a real profile keeps its memory
}

BOOST_AUTO_TEST_CASE(malformed_objects_are_skipped_with_a_reason_and_nothing_else_is_lost) {
  KubeReader reader;
  const Json good = {
      {"metadata", {{"name", "good"}}},
      {"status", {{"allocatable", {{"cpu", "4"}, {"memory", "8Gi"}, {"pods", 10}}}}}};
  const Json no_name = {{"metadata", {{"labels", nullptr}}}};
  const Json bad_cpu = {{"metadata", {{"name", "bad"}}},
                        {"status", {{"allocatable", {{"cpu", "lots"}, {"memory", "8Gi"}}}}}};
  // Over the most a node may report (2^46 bytes): the view's totals must not overflow.
  const Json vast_memory = {{"metadata", {{"name", "vast"}}},
                            {"status", {{"allocatable", {{"cpu", "4"}, {"memory", "128Ti"}}}}}};
  const Json counter = {
      {"metadata", {{"name", "kvm"}}},
      {"status",
       {{"allocatable", {{"cpu", "4"}, {"memory", "8Gi"}, {"devices.kubevirt.io/kvm", "1k"}}}}}};
  // Found by fuzzing (tests/fuzz/corpus/kube_json/oom-*): each GPU unit became a device.
  const Json gpu_billion = {
      {"metadata", {{"name", "gpus"}}},
      {"status", {{"allocatable", {{"cpu", "4"}, {"memory", "8Gi"}, {"nvidia.com/gpu", "1G"}}}}}};
  const auto list = nodes_of(
      reader, Json{{"kind", "NodeList"},
                   {"items", {good, no_name, bad_cpu, counter, nullptr, gpu_billion, vast_memory}}}
                  .dump());
  BOOST_TEST_REQUIRE(list.items.size() == 3u);
  BOOST_TEST(list.items[2].node.devices.empty());
  BOOST_TEST(list.items[2].notes.at(0).find("1000000000 units: counted as no devices") !=
             std::string::npos);
  BOOST_TEST(list.items[0].node.name == "good");
  BOOST_TEST(!list.items[0].node.schedulable);  // no Ready condition
  BOOST_TEST(list.items[1].node.devices.empty());
  BOOST_TEST(list.items[1].notes.at(0).find("1000 units") != std::string::npos);
  BOOST_TEST_REQUIRE(list.skipped.size() == 4u);
  BOOST_TEST(list.skipped[0].find("items[1]") == 0u);
  BOOST_TEST(list.skipped[0].find("metadata.name: Required value") != std::string::npos);
  BOOST_TEST(list.skipped[1].find("status.allocatable.cpu: Invalid value: \"lots\"") !=
             std::string::npos);
  BOOST_TEST(list.skipped[3].find("items[6]") == 0u, list.skipped[3]);
  BOOST_TEST(list.skipped[3].find("status.allocatable.memory: Invalid value: \"128Ti\"") !=
                 std::string::npos,
             list.skipped[3]);
  BOOST_TEST(!reader.node_list("{\"kind\":").has_value());
  BOOST_TEST(reader.node_list("{\"kind\":\"PodList\"}").error().find("expected NodeList") !=
             std::string::npos);
  BOOST_TEST(reader.pod_event("{\"type\":\"SURPRISE\",\"object\":{}}").error().find("SURPRISE") !=
             std::string::npos);
  BOOST_TEST(!reader.pod_event("{\"type\":\"ADDED\"}").has_value());
}

BOOST_AUTO_TEST_SUITE_END()
