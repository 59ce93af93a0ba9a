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

/// No placements on a cluster whose agent cannot carry them out: it joined through the seed's
/// ClusterMetadataService, which has no way to send orders to an agent.
class ViewOnlyFilter final : public ClusterFilter {
 public:
  const char* name() const override { return "view-only"; }
  std::optional<std::string> reject(const model::SchedulingRequestSpec&, const ReplicaDemand&,
                                    const ClusterCandidate& cluster) const override {
    if (!cluster.info->view_only) {
      return std::nullopt;
    }
    return std::string(
        "cluster is a view only: it joined through the seed's ClusterMetadataService, which "
        "carries no placement orders to its agent");
  }
};

}  // namespace

std::shared_ptr<const ClusterFilter> make_view_only_filter() {
  return std::make_shared<ViewOnlyFilter>();
}

std::shared_ptr<const ClusterFilter> make_health_filter() {
  return std::make_shared<HealthFilter>();
}

}  // namespace unisched::policy::plugins
