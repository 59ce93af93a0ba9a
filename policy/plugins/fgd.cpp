#include "policy/plugins/fgd.hpp"

#include <algorithm>
#include <cmath>

#include "policy/demand.hpp"

namespace unisched::policy {
namespace {

/// The typical shapes of the replicas that arrived so far (decided, placed or not), kept
/// current as each arrives: FGD's workload without knowing the workload to come.
class ArrivedShapes final : public PlacementObserver {
 public:
  void placed(const std::string&, const std::string&, const ReplicaDemand&) override {}

  void arriving(const ReplicaDemand& demand, int64_t replicas) override {
    PodShape shape;
    shape.cpu_milli = demand.cpu_milli;
    if (!demand.devices.empty()) {
      const DeviceDemand& device = demand.devices.front();
      shape.gpus = device.count;
      shape.gpu_milli = device.milli;
      shape.models = device.models.wanted();
    }
    const auto known = std::find(counted_.begin(), counted_.end(), shape);
    if (known == counted_.end()) {
      shape.weight = static_cast<double>(replicas);
      counted_.push_back(std::move(shape));
    } else {
      known->weight += static_cast<double>(replicas);
    }
    typical_ = typical_of_counts(counted_);
  }

  const std::vector<PodShape>& typical() const { return typical_; }

 private:
  std::vector<PodShape> counted_;  // distinct shapes, weight = replicas arrived
  std::vector<PodShape> typical_;
};

class Fgd final : public NodeScorer, public ShareChooser {
 public:
  Fgd(std::vector<PodShape> shapes, bool whole_scores)
      : fixed_(std::move(shapes)), whole_scores_(whole_scores) {}
  Fgd(std::shared_ptr<const ArrivedShapes> arrived, bool whole_scores)
      : arrived_(std::move(arrived)), whole_scores_(whole_scores) {}

  const char* name() const override { return "fgd"; }

  double score(const model::SchedulingRequestSpec&, const ReplicaDemand& demand,
               const ClusterCandidate&, const model::NodeState& node, const NodeFit& fit,
               CycleState&) const override {
    return score_of(node_fragmentation(node, shapes()),
                    after(node, demand, fit.devices, fit.device_milli));
  }

  /// The device whose share scores best; the first of equals.
  int32_t choose(const model::NodeState& node, const ReplicaDemand& demand,
                 const std::vector<int32_t>& candidates, CycleState&) const override {
    const double before = node_fragmentation(node, shapes());
    const int32_t milli[] = {demand.devices.front().milli};
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
               absl::Span<const int32_t> devices, absl::Span<const int32_t> milli) const {
    return fragmentation_after(node, shapes(), demand.cpu_milli, devices, milli);
  }

  /// 50 when the fragmentation stays, towards 100 the more it shrinks, towards 0 the more it
  /// grows (a sigmoid of the change in GPUs); cut to a whole number when the policy's are.
  double score_of(double before, double after) const {
    const double score = 100.0 / (1.0 + std::exp(-(before - after) / 1000.0));
    return whole_scores_ ? std::trunc(score) : score;
  }

  const std::vector<PodShape>& shapes() const { return arrived_ ? arrived_->typical() : fixed_; }

  std::vector<PodShape> fixed_;
  std::shared_ptr<const ArrivedShapes> arrived_;  // when set, the shapes are learnt from it
  bool whole_scores_;
};

Policy with_fgd(std::shared_ptr<Fgd> fgd, bool whole_scores) {
  std::string error;
  Policy policy = *Registry::builtin().make_policy("fgd", {}, error);
  policy.scorers.push_back({fgd, 1.0});
  policy.share_chooser = std::move(fgd);
  policy.whole_scores = whole_scores;
  return policy;
}

}  // namespace

Policy fgd_policy(std::vector<PodShape> typical_shapes, bool whole_scores) {
  return with_fgd(std::make_shared<Fgd>(std::move(typical_shapes), whole_scores), whole_scores);
}

Policy with_packed_ties(Policy policy) {
  // A second score this small only decides between nodes whose whole-number scores tie.
  constexpr double kTieBreakWeight = 1e-3;
  policy.scorers.push_back({Registry::builtin().make_scorer("gpu-in-use"), kTieBreakWeight});
  policy.ties = TieBreak::Hashed;
  return policy;
}

Policy fgd_learning_preset() {
  return with_packed_ties(fgd_learning_policy(true));
}

Policy fgd_learning_policy(bool whole_scores) {
  auto arrived = std::make_shared<ArrivedShapes>();
  Policy policy = with_fgd(std::make_shared<Fgd>(arrived, whole_scores), whole_scores);
  policy.observers.push_back(std::move(arrived));
  return policy;
}

}  // namespace unisched::policy
