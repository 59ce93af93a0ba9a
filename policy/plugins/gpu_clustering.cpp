#include "policy/plugins/gpu_clustering.hpp"

#include "policy/fragmentation.hpp"

namespace unisched::policy {

std::string PodClassLedger::class_of(const ReplicaDemand& demand) {
  if (demand.devices.empty()) {
    return {};
  }
  const DeviceDemand& device = demand.devices.front();
  if (device.count == 1 && device.milli < model::kWholeDeviceMilli) {
    return "share";
  }
  return std::to_string(device.count) + "-gpu";
}

void PodClassLedger::add(const std::string& cluster, const std::string& node,
                         const std::string& pod_class) {
  if (pod_class.empty()) {
    return;
  }
  ++classes_[{cluster, node}][pod_class];
}

std::map<std::string, int32_t> PodClassLedger::on(const std::string& cluster,
                                                  const std::string& node) const {
  const auto found = classes_.find({cluster, node});
  return found == classes_.end() ? std::map<std::string, int32_t>{} : found->second;
}

namespace {

class GpuClustering final : public NodeScorer {
 public:
  explicit GpuClustering(std::shared_ptr<const PodClassLedger> ledger)
      : ledger_(std::move(ledger)) {}

  const char* name() const override { return "gpu-clustering"; }

  double score(const model::SchedulingRequestSpec&, const ReplicaDemand& demand,
               const ClusterCandidate& cluster, const model::NodeState& node, const NodeFit&,
               CycleState&) const override {
    const std::string own = PodClassLedger::class_of(demand);
    if (own.empty()) {
      return 0;
    }
    // In whole numbers, as the paper computes it: 25 x the used share of an 8-GPU node.
    constexpr int64_t kScale = 8 * model::kWholeDeviceMilli;
    const int64_t fullness = 25 * (kScale - idle_gpu_milli(node)) / kScale;
    const auto classes = ledger_->on(cluster.info->id, node.name);
    if (classes.count(own) > 0) {
      return static_cast<double>(fullness + (classes.size() == 1 ? 75 : 50));
    }
    return static_cast<double>(fullness + (classes.empty() ? 25 : 0));
  }

 private:
  std::shared_ptr<const PodClassLedger> ledger_;
};

}  // namespace

std::shared_ptr<const NodeScorer> make_gpu_clustering(
    std::shared_ptr<const PodClassLedger> ledger) {
  return std::make_shared<GpuClustering>(std::move(ledger));
}

}  // namespace unisched::policy
