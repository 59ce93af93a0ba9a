#include "policy/plugins/filters.hpp"

namespace unisched::policy::plugins {
namespace {

/// A request may insist on bare metal or on virtual machines.
class MachineTypeFilter final : public ClusterFilter {
 public:
  const char* name() const override { return "machine-type"; }
  std::optional<std::string> reject(const model::SchedulingRequestSpec& request,
                                    const ReplicaDemand&,
                                    const ClusterCandidate& cluster) const override {
    const auto& wanted = request.placement.machine_type;
    if (!wanted || *wanted == cluster.info->machine_type) {
      return std::nullopt;
    }
    return "machines are " +
           std::string(spelling(model::kMachineTypes, cluster.info->machine_type)) +
           ", request needs " + std::string(spelling(model::kMachineTypes, *wanted));
  }
  bool passes_every_cluster(const model::SchedulingRequestSpec& request) const override {
    return !request.placement.machine_type;
  }
};

}  // namespace

std::shared_ptr<const ClusterFilter> make_machine_type_filter() {
  return std::make_shared<MachineTypeFilter>();
}

}  // namespace unisched::policy::plugins
