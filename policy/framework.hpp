// The scheduling framework's two plugin kinds, over a const view of each cluster.
//   ClusterFilter: can this cluster take the request at all? A reason when not, which the
//                  user sees in an unschedulable decision.
//   NodeScorer:    how good is this node of this cluster for one replica, 0..100.
// Plugins are plain C++: no actors, no I/O. Each lives in its own file under plugins/.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/cluster_view.hpp"
#include "model/scheduling_request.hpp"
#include "policy/demand.hpp"
#include "policy/node_fit.hpp"

namespace unisched::policy {

/// What the scheduler knows of a cluster besides its nodes.
struct ClusterInfo {
  std::string id;
  std::string region;
  std::string zone;
  model::MachineType machine_type = model::MachineType::VirtualMachine;
  bool healthy = false;
  bool view_only = false;  ///< its agent cannot carry out placements: never placed on
};

struct ClusterCandidate {
  const ClusterInfo* info = nullptr;
  const model::ClusterView* view = nullptr;
};

class ClusterFilter {
 public:
  virtual ~ClusterFilter() = default;
  virtual const char* name() const = 0;
  /// Why `cluster` cannot take `request` (one replica of which needs `demand`), or nullopt when
  /// it may.
  virtual std::optional<std::string> reject(const model::SchedulingRequestSpec& request,
                                            const ReplicaDemand& demand,
                                            const ClusterCandidate& cluster) const = 0;
  /// The same test as far as the cluster's totals tell, in constant time: it may pass a cluster
  /// reject() refuses, never the other way round. A sampled decision filters so, since its
  /// draws find out the rest (see decide()). Filters that are constant time already keep this.
  virtual std::optional<std::string> reject_by_totals(const model::SchedulingRequestSpec& request,
                                                      const ReplicaDemand& demand,
                                                      const ClusterCandidate& cluster) const {
    return reject(request, demand, cluster);
  }
  /// Whether the filter passes every cluster for `request`, which asks for nothing it checks:
  /// a decision then skips it instead of asking each cluster (at 100 clusters, asking every
  /// filter of every cluster was a fifth of a sampled decision).
  virtual bool passes_every_cluster(const model::SchedulingRequestSpec& /*request*/) const {
    return false;
  }
};

class NodeScorer {
 public:
  virtual ~NodeScorer() = default;
  virtual const char* name() const = 0;
  /// 0..100 for placing one replica of `demand` on `node` (its state before) of `cluster`,
  /// taking the devices of `fit` there. A scorer that draws draws from `cycle`, the decision's.
  virtual double score(const model::SchedulingRequestSpec& request, const ReplicaDemand& demand,
                       const ClusterCandidate& cluster, const model::NodeState& node,
                       const NodeFit& fit, CycleState& cycle) const = 0;
};

struct WeightedScorer {
  std::shared_ptr<const NodeScorer> scorer;
  double weight = 1.0;
};

/// Told of every replica its scheduler committed, on that scheduler's thread: a plugin that
/// scores by what runs where (GpuClustering) keeps its own account through it, instead of
/// sharing state that another thread writes. A policy with observers belongs to one scheduler.
class PlacementObserver {
 public:
  virtual ~PlacementObserver() = default;
  virtual void placed(const std::string& cluster, const std::string& node,
                      const ReplicaDemand& demand) = 0;
  /// A request about to be decided (by decide()): `replicas` of `demand`. What has arrived so
  /// far, placed or not; a request decided again (after a conflict) is told again.
  virtual void arriving(const ReplicaDemand& /*demand*/, int64_t /*replicas*/) {}
};

/// How the pipeline chooses between nodes of equal score.
enum class TieBreak {
  Name,    ///< the smaller cluster id, then node name: reproducible (the paper's simulator's rule)
  Random,  ///< each equally likely, as kube-scheduler does; draws follow decide()'s seed
  /// A fixed hash of the node name, fleet-wide: the same nodes fill first whichever cluster
  /// holds them, and nodes of every kind mix in that order (a consistent first-fit).
  Hashed,
  /// A random order of the nodes drawn once per run from Policy::tie_seed, the same for every
  /// decision of the run: the paper's simulator numbers its nodes so (a permutation drawn from
  /// the run's seed, prefixed to each name) and then takes the smaller name.
  Shuffled,
};

/// Fleets up to this many nodes are scored node by node under the adaptive sample.
inline constexpr size_t kAdaptiveExhaustiveNodes = 1000;
/// Above that, this many fitting nodes are drawn and scored per replica.
inline constexpr size_t kAdaptiveSampledNodes = 256;

/// The nodes scored per replica among `fleet_nodes` under the adaptive rule; 0: every node.
/// Every node of a fleet up to kAdaptiveExhaustiveNodes, so small fleets decide exactly as
/// before; above it kAdaptiveSampledNodes, a fixed cost however large the fleet. (kube-
/// scheduler scores 50% of a cluster falling to 5%, at least 100 nodes: 5,000 nodes per pod at
/// 100,000 nodes, more than two cores decide 200 requests/s on; docs/benchmarks-history.md "At
/// fleet scale" measures what the fixed sample costs in quality.)
constexpr size_t adaptive_node_sample(size_t fleet_nodes) {
  return fleet_nodes <= kAdaptiveExhaustiveNodes ? 0 : kAdaptiveSampledNodes;
}

/// The filters and weighted scorers one scheduler runs.
struct Policy {
  std::string name;
  std::vector<std::shared_ptr<const ClusterFilter>> filters;
  std::vector<WeightedScorer> scorers;
  /// Nodes scored per replica. 0 scores every fitting node of every feasible cluster. N > 0
  /// scores only N fitting nodes drawn at random across those clusters (the "power of d
  /// choices" of Sparrow: near the best at a fixed cost however large the fleet), and searches
  /// every node only when the draws find none that fits.
  size_t node_sample = 0;
  /// With node_sample 0: the sample follows the size of the fleet each replica is placed among
  /// (adaptive_node_sample), as kube-scheduler's percentageOfNodesToScore does.
  bool adaptive_node_sample = false;
  /// How equally good nodes are chosen between.
  TieBreak ties = TieBreak::Name;
  /// The seed of TieBreak::Shuffled's order.
  uint64_t tie_seed = 0;
  /// Whether each scorer's score is cut to a whole number before it is weighted, as
  /// kube-scheduler's plugins score in integers 0..100. Cut scores tie more often, and the ties
  /// then decide: the FGD paper's simulator, with its ties by node name, packs through them.
  bool whole_scores = false;
  /// Picks the device a share of one goes to; null: best fit (see fit_on_node).
  std::shared_ptr<const ShareChooser> share_chooser;
  /// Told of each committed replica (see PlacementObserver).
  std::vector<std::shared_ptr<PlacementObserver>> observers;
};

/// Sets the policy's node sample as a command line gives it: N nodes, 0 every node, nullopt
/// (no flag) the adaptive rule.
inline void set_node_sample(Policy& policy, std::optional<size_t> sample) {
  policy.node_sample = sample.value_or(0);
  policy.adaptive_node_sample = !sample.has_value();
}

/// Named plugin factories; adding a name twice is refused.
class Registry {
 public:
  using FilterFactory = std::function<std::shared_ptr<const ClusterFilter>()>;
  using ScorerFactory = std::function<std::shared_ptr<const NodeScorer>()>;

  /// The registry with every built-in plugin.
  static const Registry& builtin();

  /// Filters run in the order they were added.
  bool add_filter(const std::string& name, FilterFactory factory);
  bool add_scorer(const std::string& name, ScorerFactory factory);

  /// Every registered filter plus the named scorers with their weights; nullopt (and `error`
  /// set) when a scorer name is unknown.
  std::optional<Policy> make_policy(const std::string& name,
                                    const std::vector<std::pair<std::string, double>>& scorers,
                                    std::string& error) const;

  /// A preset: "spread" (least-allocated), "binpack" (most-allocated, gpu-packing), "balanced"
  /// (least-allocated, gpu-packing, locality), "bestfit", "random", or "fgd" (FGD learning the
  /// workload's typical pods from the requests that arrive: its observer makes each made
  /// policy one scheduler's, so make one per scheduler).
  std::optional<Policy> preset(const std::string& name, std::string& error) const;

  std::vector<std::string> scorer_names() const;

  /// A new scorer of that name, or null for a name not registered.
  std::shared_ptr<const NodeScorer> make_scorer(const std::string& name) const;

 private:
  std::vector<std::pair<std::string, FilterFactory>> filters_;
  std::map<std::string, ScorerFactory> scorers_;
};

}  // namespace unisched::policy
