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
               const ClusterCandidate&, const model::NodeState& node,
               const NodeFit& fit) const override {
    const double change =
        node_fragmentation(node, shapes_) - fragmentation_after(node, demand, fit);
    return 100.0 / (1.0 + std::exp(-change / 1000.0));
  }

  /// The device whose share leaves the least fragmentation; the first of equals.
  int32_t choose(const model::NodeState& node, const ReplicaDemand& demand,
                 const std::vector<int32_t>& candidates) const override {
    const auto on = [&](int32_t device) {
      NodeFit fit;
      fit.devices = {device};
      fit.device_milli = {demand.devices.front().milli};
      return fragmentation_after(node, demand, fit);
    };
    int32_t best = candidates.front();
    double least = on(best);
    for (size_t i = 1; i < candidates.size(); ++i) {
      if (const double after = on(candidates[i]); after < least) {
        least = after;
        best = candidates[i];
      }
    }
    return best;
  }

 private:
  double fragmentation_after(const model::NodeState& node, const ReplicaDemand& demand,
                             const NodeFit& fit) const {
    model::NodeState placed = node;
    take(placed, demand, fit);
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
