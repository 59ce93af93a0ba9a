// The Kubernetes API's JSON as the adapter reads it (adapters/kubernetes/kube_reader): node and
// pod lists, watch events and Status bodies; the first byte picks which. Whatever the text, the
// reader answers with objects or with a reason, and what it keeps is usable: nodes have names
// and sound numbers, pods have their namespace/name key and no negative amounts.
#include "adapters/kubernetes/kube_objects.hpp"
#include "model/cluster_view.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace kubernetes = unisched::adapters::kubernetes;
using unisched::fuzz::check;

namespace {

void check_node(const kubernetes::NodeReading& reading) {
  const auto problem = unisched::model::check_node(reading.node);
  check(!problem, "a node read is a valid node", problem ? problem->to_string() : "");
}

void check_pod(const kubernetes::PodReading& pod) {
  check(pod.key.find('/') != std::string::npos, "a pod's key is namespace/name", pod.key);
  check(pod.cpu_milli >= 0 && pod.memory_bytes >= 0, "a pod's amounts are not negative", pod.key);
  for (const auto& [resource, amount] : pod.extended) {
    check(amount >= 0, "a pod's extended amounts are not negative", resource);
  }
  for (size_t i = 0; i < pod.host_ports.size(); ++i) {
    check(i == 0 || pod.host_ports[i - 1] < pod.host_ports[i], "a pod's host ports ascend once",
          pod.key);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0)
    return 0;
  static kubernetes::KubeReader reader;
  const std::string_view json = unisched::fuzz::as_text(data + 1, size - 1);
  switch (data[0] % 5) {
    case 0:
      if (const auto list = reader.node_list(json)) {
        for (const auto& node : list->items)
          check_node(node);
      }
      break;
    case 1:
      if (const auto list = reader.pod_list(json)) {
        for (const auto& pod : list->items)
          check_pod(pod);
      }
      break;
    case 2:
      if (const auto event = reader.node_event(json); event && event->object) {
        check_node(*event->object);
      }
      break;
    case 3:
      if (const auto event = reader.pod_event(json); event && event->object) {
        check_pod(*event->object);
      }
      break;
    default:
      (void)reader.status(json);
  }
  return 0;
}
