// GpuClustering, a baseline of the FGD paper: GPU work goes to nodes that already run pods of
// its class (shares together, k-GPU pods with k-GPU pods), fuller nodes first. A node's state
// does not say which pods it runs, so the scorer reads them from a ledger its owner keeps.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>

#include "policy/framework.hpp"

namespace unisched::policy {

/// The GPU classes of the pods placed on each node, counted: "share" for a share of one device,
/// "K-gpu" for K whole devices. Kept by the scheduler that places them (as its policy's
/// observer), on its own thread.
class PodClassLedger final : public PlacementObserver {
 public:
  /// The class of a replica of `demand`; empty when it asks for no device.
  static std::string class_of(const ReplicaDemand& demand);

  void placed(const std::string& cluster, const std::string& node,
              const ReplicaDemand& demand) override {
    add(cluster, node, class_of(demand));
  }
  void add(const std::string& cluster, const std::string& node, const std::string& pod_class);
  std::map<std::string, int32_t> on(const std::string& cluster, const std::string& node) const;

 private:
  std::map<std::pair<std::string, std::string>, std::map<std::string, int32_t>> classes_;
};

/// 76..100 on a node running only the replica's class, 51..75 on one running it among others,
/// 26..50 on a node without GPU pods, 0..25 on a node running only other classes; within each
/// band, the less idle GPU the better. Work without devices scores 0 everywhere.
std::shared_ptr<const NodeScorer> make_gpu_clustering(std::shared_ptr<const PodClassLedger> ledger);

}  // namespace unisched::policy
