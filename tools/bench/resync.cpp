#include "tools/bench/resync.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

#include "messages/convert.hpp"
#include "model/cluster_view.hpp"

namespace unisched::bench {
namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0 : values[values.size() / 2];
}

}  // namespace

ResyncResult resync(int nodes, int repetitions) {
  v1::ClusterSnapshot snapshot;
  snapshot.set_cluster_id("bench");
  snapshot.set_epoch(1);
  snapshot.set_version(1);
  for (int i = 0; i < nodes; ++i) {
    v1::NodeState* node = snapshot.add_nodes();
    node->set_name("node-" + std::to_string(i));
    node->set_node_group("a100");
    node->set_allocatable_cpu_milli(96'000);
    node->set_allocatable_memory_bytes(int64_t{1024} << 30);
    node->set_max_pods(110);
    node->set_allocated_cpu_milli((i % 7) * 4'000);
    node->set_schedulable(true);
    for (int d = 0; d < 8; ++d) {
      v1::Accelerator* device = node->add_accelerators();
      device->set_model("NVIDIA-A100-SXM4-80GB");
      device->set_memory_bytes(int64_t{80} << 30);
      device->set_interconnect(v1::NVLINK);
      device->set_allocated_milli((i + d) % 3 == 0 ? 1000 : 0);
    }
  }
  const std::string bytes = snapshot.SerializeAsString();
  ResyncResult result;
  result.bytes_per_node = static_cast<double>(bytes.size()) / std::max(nodes, 1);
  std::vector<double> totals;
  std::vector<double> decodes;
  for (int r = 0; r < repetitions; ++r) {
    const auto start = Clock::now();
    v1::ClusterSnapshot received;
    received.ParseFromString(bytes);
    auto decoded = messages::from_proto(received);
    const auto decoded_at = Clock::now();
    if (!decoded) {
      result.problem = decoded.error();
      return result;
    }
    model::ClusterView view;
    if (view.replace(decoded->nodes, decoded->resources, model::Allocation::MayExceed)) {
      result.problem = "the snapshot did not apply";
      return result;
    }
    totals.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    decodes.push_back(std::chrono::duration<double, std::milli>(decoded_at - start).count());
  }
  result.resync_ms = median(totals);
  result.decode_ms = median(decodes);
  return result;
}

}  // namespace unisched::bench
