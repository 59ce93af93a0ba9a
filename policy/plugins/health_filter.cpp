#include "policy/plugins/filters.hpp"

namespace unisched::policy::plugins {
namespace {

/// No placements on a cluster the supervisor has not confirmed healthy.
class HealthFilter final : public ClusterFilter {
 public:
  const char* name() const override { return "health"; }
  std::optional<std::string> reject(const model::SchedulingRequestSpec&, const ReplicaDemand&,
                                    const ClusterCandidate& cluster) const override {
    if (cluster.info->healthy) {
      return std::nullopt;
    }
    return std::string("cluster is not healthy");
  }
};

}  // namespace

std::shared_ptr<const ClusterFilter> make_health_filter() {
  return std::make_shared<HealthFilter>();
}

}  // namespace unisched::policy::plugins
