#include "tools/bench/resync.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

#include "messages/convert.hpp"
#include "model/cluster_view.hpp"
#include "tools/bench/fixtures.hpp"

namespace unisched::bench {

ResyncResult resync(int nodes, int repetitions) {
  v1::ClusterSnapshot snapshot;
  snapshot.set_cluster_id("bench");
  snapshot.set_epoch(1);
  snapshot.set_version(1);
  for (int i = 0; i < nodes; ++i) {
    *snapshot.add_nodes() = synthetic_node(i, (i % 7) * 4'000, 8);
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
    if (view.replace(std::move(decoded->nodes), decoded->resources, model::Allocation::MayExceed)) {
      result.problem = "the snapshot did not apply";
      return result;
    }
    totals.push_back(milliseconds_since(start));
    decodes.push_back(std::chrono::duration<double, std::milli>(decoded_at - start).count());
  }
  result.resync_ms = percentile(totals, 0.5);
  result.decode_ms = percentile(decodes, 0.5);
  return result;
}

}  // namespace unisched::bench
