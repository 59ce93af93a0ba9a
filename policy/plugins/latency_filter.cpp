#include "policy/plugins/filters.hpp"

namespace unisched::policy::plugins {
namespace {

/// The cluster's network latency bound must lie within the request's maximum.
class LatencyFilter final : public ClusterFilter {
 public:
  const char* name() const override { return "latency"; }
  std::optional<std::string> reject(const model::SchedulingRequestSpec& request,
                                    const ReplicaDemand&,
                                    const ClusterCandidate& cluster) const override {
    if (!request.placement.max_latency) {
      return std::nullopt;
    }
    const auto& latency = cluster.view->resources().latency_max_ns;
    if (!latency) {
      return std::string("network latency unknown, request needs ") +
             request.placement.max_latency->to_string();
    }
    if (*latency > request.placement.max_latency->max_nanoseconds()) {
      return "network latency up to " + std::to_string(*latency) + "ns exceeds " +
             request.placement.max_latency->to_string();
    }
    return std::nullopt;
  }
  bool passes_every_cluster(const model::SchedulingRequestSpec& request) const override {
    return !request.placement.max_latency;
  }
};

}  // namespace

std::shared_ptr<const ClusterFilter> make_latency_filter() {
  return std::make_shared<LatencyFilter>();
}

}  // namespace unisched::policy::plugins
