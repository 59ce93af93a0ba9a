#include <algorithm>

#include "policy/plugins/filters.hpp"

namespace unisched::policy::plugins {
namespace {

bool contains(const std::vector<std::string>& values, const std::string& value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

/// Region, zone and cluster affinity (every non-empty list must match) and anti-affinity (no
/// listed value may match).
class AffinityFilter final : public ClusterFilter {
 public:
  const char* name() const override { return "affinity"; }
  std::optional<std::string> reject(const model::SchedulingRequestSpec& request,
                                    const ReplicaDemand&,
                                    const ClusterCandidate& cluster) const override {
    const ClusterInfo& info = *cluster.info;
    const model::ClusterSelector& wanted = request.placement.affinity;
    const model::ClusterSelector& excluded = request.placement.anti_affinity;
    const std::tuple<const char*, const std::vector<std::string>*, const std::vector<std::string>*,
                     const std::string*>
        dimensions[] = {{"region", &wanted.regions, &excluded.regions, &info.region},
                        {"zone", &wanted.zones, &excluded.zones, &info.zone},
                        {"cluster", &wanted.clusters, &excluded.clusters, &info.id}};
    for (const auto& [what, required, forbidden, value] : dimensions) {
      if (!required->empty() && !contains(*required, *value)) {
        return std::string(what) + " \"" + *value + "\" is not among the required ones";
      }
      if (contains(*forbidden, *value)) {
        return std::string(what) + " \"" + *value + "\" is excluded by anti-affinity";
      }
    }
    return std::nullopt;
  }
  bool passes_every_cluster(const model::SchedulingRequestSpec& request) const override {
    return request.placement.affinity.empty() && request.placement.anti_affinity.empty();
  }
};

}  // namespace

std::shared_ptr<const ClusterFilter> make_affinity_filter() {
  return std::make_shared<AffinityFilter>();
}

}  // namespace unisched::policy::plugins
