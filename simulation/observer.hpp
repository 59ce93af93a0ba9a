// The simulation's observer: written apart from the code under test, it keeps its own ledger of
// what each node holds (from the placements each cluster carried out, not from the model or
// ClusterCore) and checks the invariants during and after a run. Plain C++ over the wire
// types; the run feeds it.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "adapters/cluster_adapter.hpp"
#include "messages/unisched.pb.h"

namespace unisched::simulation {

class Observer {
 public:
  /// The run's virtual time in ms, to date each violation.
  void set_time(int64_t now_ms) { now_ms_ = now_ms; }

  /// A cluster's nodes as they stood before any placement: their capacity and what background
  /// work held then.
  void add_cluster(const std::string& cluster, const std::vector<model::NodeState>& nodes);

  /// Around each placement a cluster is asked to carry out: the ledger's own verdict first,
  /// then what the cluster did. Applying one the ledger says does not fit is a violation.
  void on_apply(const std::string& cluster, const adapters::Placement& placement,
                adapters::PlacementOutcome outcome);
  /// A placement that stopped holding its node: its work ended (`finished`), or it was released.
  void on_gone(const std::string& cluster, const std::string& placement_id, bool finished);

  /// Every node state that reaches a ClusterActor (in an update or a snapshot): none may
  /// show a node holding more than it has.
  void check_reported(const std::string& where, const model::NodeState& node);

  /// After the run settled: every accepted request ended placed, finished, unschedulable with
  /// reasons or lost with its reason; no gang half placed; nothing runs for a request that is
  /// not placed.
  void check_requests(const v1::RequestList& list, const std::set<std::string>& accepted,
                      const std::map<std::string, int>& replicas,
                      const std::set<std::string>& gangs);

  /// After the run settled: the ClusterActor's view equals the agent's state at the same
  /// version, node by node.
  void check_view(const std::string& cluster, const v1::ClusterSnapshot& view,
                  const v1::ClusterSnapshot& truth);

  void violation(std::string what);
  const std::vector<std::string>& violations() const { return violations_; }

  /// Placements the clusters refused for want of room: commits that lost a race the centre
  /// could not see (a ClusterActor restarted before the agent confirmed an order). Counted,
  /// not violations: the cluster's refusal is the check that catches them.
  uint64_t refused_for_room() const { return refused_for_room_; }
  uint64_t applied() const { return applied_; }
  uint64_t checks() const { return checks_; }

 private:
  struct Usage {
    int64_t cpu_milli = 0;
    int64_t memory_bytes = 0;
    int64_t pods = 0;
    std::vector<int32_t> device_milli;
    std::set<int32_t> host_ports;
  };
  struct Node {
    int64_t cpu_milli = 0;
    int64_t memory_bytes = 0;
    int64_t max_pods = 0;
    Usage used;
  };
  struct Running {
    std::string cluster;
    adapters::Placement placement;
  };

  /// Why `placement` does not fit `node` by the ledger, or empty.
  static std::string shortfall(const Node& node, const adapters::Placement& placement);
  void check_placed_work(const v1::RequestStatus& status);
  static void take(Usage& used, const adapters::Placement& placement, int sign);

  std::map<std::string, std::map<std::string, Node>> nodes_;  // cluster -> node name -> node
  std::map<std::string, Running> running_;                    // by placement id
  std::set<std::string> ever_applied_;
  std::set<std::string> finished_;
  std::vector<std::string> violations_;
  int64_t now_ms_ = 0;
  uint64_t refused_for_room_ = 0;
  uint64_t applied_ = 0;
  uint64_t checks_ = 0;
};

}  // namespace unisched::simulation
