#include <map>

#include "policy/candidates.hpp"
#include "policy/node_fit.hpp"
#include "policy/plugins/filters.hpp"

namespace unisched::policy::plugins {
namespace {

/// At least one node must hold one replica; otherwise say why the nodes did not.
class ResourceFitFilter final : public ClusterFilter {
 public:
  const char* name() const override { return "resource-fit"; }
  std::optional<std::string> reject_by_totals(const model::SchedulingRequestSpec&,
                                              const ReplicaDemand& demand,
                                              const ClusterCandidate& cluster) const override {
    if (too_few_devices(*cluster.view, demand)) {
      return "0 of " + std::to_string(cluster.view->size()) +
             " nodes fit: the whole cluster has too few free devices of the model";
    }
    return std::nullopt;
  }
  std::optional<std::string> reject(const model::SchedulingRequestSpec& request,
                                    const ReplicaDemand& demand,
                                    const ClusterCandidate& cluster) const override {
    if (auto refusal = reject_by_totals(request, demand, cluster)) {
      return refusal;
    }
    std::map<NodeMisfit, int> misfits;
    bool fits = false;
    visit_candidates(*cluster.view, demand, [&](const model::NodeState& node) {
      const NodeFit fit = fit_on_node(node, demand);
      fits = fit.fits();
      if (!fits) {
        ++misfits[*fit.misfit];
      }
      return !fits;
    });
    if (fits) {
      return std::nullopt;
    }
    std::string reason = "0 of " + std::to_string(cluster.view->size()) + " nodes fit";
    const size_t unchecked = cluster.view->size() - [&] {
      size_t checked = 0;
      for (const auto& [misfit, count] : misfits) {
        checked += static_cast<size_t>(count);
      }
      return checked;
    }();
    std::string separator = ": ";
    for (const auto& [misfit, count] : misfits) {
      reason += separator + std::to_string(count) + " " + describe(misfit);
      separator = ", ";
    }
    if (unchecked > 0) {  // left out by the index the candidates came from
      reason += separator + std::to_string(unchecked) +
                (demand.devices.empty() ? " " + std::string(describe(NodeMisfit::Cpu))
                                        : std::string(" without enough free devices of the model"));
    }
    return reason;
  }
};

}  // namespace

std::shared_ptr<const ClusterFilter> make_resource_fit_filter() {
  return std::make_shared<ResourceFitFilter>();
}

}  // namespace unisched::policy::plugins
