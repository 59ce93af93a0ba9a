#include "policy/plugins/scorers.hpp"

namespace unisched::policy::plugins {
namespace {

constexpr double kNanosPerMilli = 1e6;

/// Locality: the first region a request names is preferred over the others it allows;
/// otherwise clusters with a faster network score higher (100 at 0 ms, 0 from 10 ms).
class Locality final : public NodeScorer {
 public:
  const char* name() const override { return "locality"; }
  double score(const model::SchedulingRequestSpec& request, const ReplicaDemand&,
               const ClusterCandidate& cluster, const model::NodeState&, const NodeFit&,
               CycleState&) const override {
    const auto& regions = request.placement.affinity.regions;
    if (!regions.empty()) {
      return cluster.info->region == regions.front() ? 100.0 : 50.0;
    }
    const auto& latency = cluster.view->resources().latency_max_ns;
    if (!latency) {
      return 50.0;
    }
    return std::max(0.0, 100.0 - 10.0 * static_cast<double>(*latency) / kNanosPerMilli);
  }
};

}  // namespace

std::shared_ptr<const NodeScorer> make_locality() {
  return std::make_shared<Locality>();
}

}  // namespace unisched::policy::plugins
