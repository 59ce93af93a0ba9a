#include "policy/plugins/fgd.hpp"

#include <cmath>

namespace unisched::policy {
namespace {

class Fgd final : public NodeScorer, public ShareChooser {
 public:
  explicit Fgd(std::vector<PodShape> shapes) : shapes_(std::move(shapes)) {}

  const char* name() const override { return "fgd"; }

  /// 50 when the fragmentation stays, towards 100 the more it shrinks, towards 0 the more it
  /// grows (a sigmoid of the change in GPUs).
  double score(const model::SchedulingRequestSpec&, const ReplicaDemand& demand,
               const ClusterCandidate&, const model::NodeState& node) const override {
    const double before = node_fragmentation(node, shapes_);
    double after = before;
    if (is_share(demand)) {
      after = fragmentation_with_share(node, demand, share_device(node, demand));
    } else {
      model::NodeState placed = node;
      placed.allocated_cpu_milli += demand.cpu_milli;
      const NodeFit fit = fit_on_node(node, demand);
      for (size_t i = 0; i < fit.devices.size(); ++i) {
        placed.devices[static_cast<size_t>(fit.devices[i])].allocated_milli += fit.device_milli[i];
      }
      after = node_fragmentation(placed, shapes_);
    }
    return 100.0 / (1.0 + std::exp(-(before - after) / 1000.0));
  }

  int32_t choose(const model::NodeState& node, const ReplicaDemand& demand,
                 const std::vector<int32_t>& candidates) const override {
    int32_t best = candidates.front();
    double least = fragmentation_with_share(node, demand, best);
    for (size_t i = 1; i < candidates.size(); ++i) {  // the first of equals wins
      const double after = fragmentation_with_share(node, demand, candidates[i]);
      if (after < least) {
        least = after;
        best = candidates[i];
      }
    }
    return best;
  }

 private:
  static bool is_share(const ReplicaDemand& demand) {
    return demand.devices.size() == 1 && demand.devices[0].milli < model::kWholeDeviceMilli;
  }

  /// The device a share goes to (choose() over the devices that can hold it).
  int32_t share_device(const model::NodeState& node, const ReplicaDemand& demand) const {
    const NodeFit fit = fit_on_node(node, demand, this);
    return fit.devices.empty() ? 0 : fit.devices.front();
  }

  double fragmentation_with_share(const model::NodeState& node, const ReplicaDemand& demand,
                                  int32_t device) const {
    model::NodeState placed = node;
    placed.allocated_cpu_milli += demand.cpu_milli;
    if (static_cast<size_t>(device) < placed.devices.size()) {
      placed.devices[static_cast<size_t>(device)].allocated_milli += demand.devices[0].milli;
    }
    return node_fragmentation(placed, shapes_);
  }

  std::vector<PodShape> shapes_;
};

}  // namespace

Policy fgd_policy(std::vector<PodShape> typical_shapes) {
  std::string error;
  Policy policy = *Registry::builtin().make_policy("fgd", {}, error);
  auto fgd = std::make_shared<Fgd>(std::move(typical_shapes));
  policy.scorers.push_back({fgd, 1.0});
  policy.share_chooser = fgd;
  return policy;
}

}  // namespace unisched::policy
