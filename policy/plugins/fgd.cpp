#include "policy/plugins/fgd.hpp"

#include <cmath>

namespace unisched::policy {
namespace {

class Fgd final : public NodeScorer, public ShareChooser {
 public:
  Fgd(std::vector<PodShape> shapes, bool whole_scores)
      : shapes_(std::move(shapes)), whole_scores_(whole_scores) {}

  const char* name() const override { return "fgd"; }

  double score(const model::SchedulingRequestSpec&, const ReplicaDemand& demand,
               const ClusterCandidate&, const model::NodeState& node, const NodeFit& fit,
               CycleState&) const override {
    return score_of(node_fragmentation(node, shapes_),
                    after(node, demand, fit.devices, fit.device_milli));
  }

  /// The device whose share scores best; the first of equals.
  int32_t choose(const model::NodeState& node, const ReplicaDemand& demand,
                 const std::vector<int32_t>& candidates, CycleState&) const override {
    const double before = node_fragmentation(node, shapes_);
    const std::vector<int32_t> milli{demand.devices.front().milli};
    int32_t best = candidates.front();
    double best_score = score_of(before, after(node, demand, {best}, milli));
    for (size_t i = 1; i < candidates.size(); ++i) {
      if (const double score = score_of(before, after(node, demand, {candidates[i]}, milli));
          score > best_score) {
        best_score = score;
        best = candidates[i];
      }
    }
    return best;
  }

 private:
  double after(const model::NodeState& node, const ReplicaDemand& demand,
               const std::vector<int32_t>& devices, const std::vector<int32_t>& milli) const {
    return fragmentation_after(node, shapes_, demand.cpu_milli, devices, milli);
  }

  /// 50 when the fragmentation stays, towards 100 the more it shrinks, towards 0 the more it
  /// grows (a sigmoid of the change in GPUs); cut to a whole number when the policy's are.
  double score_of(double before, double after) const {
    const double score = 100.0 / (1.0 + std::exp(-(before - after) / 1000.0));
    return whole_scores_ ? std::trunc(score) : score;
  }

  std::vector<PodShape> shapes_;
  bool whole_scores_;
};

}  // namespace

Policy fgd_policy(std::vector<PodShape> typical_shapes, bool whole_scores) {
  std::string error;
  Policy policy = *Registry::builtin().make_policy("fgd", {}, error);
  auto fgd = std::make_shared<Fgd>(std::move(typical_shapes), whole_scores);
  policy.scorers.push_back({fgd, 1.0});
  policy.share_chooser = fgd;
  policy.whole_scores = whole_scores;
  return policy;
}

}  // namespace unisched::policy
