#include "policy/pipeline.hpp"

#include <absl/container/inlined_vector.h>
#include <absl/container/node_hash_map.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <random>

#include "policy/candidates.hpp"
#include "policy/fleet_position.hpp"
#include "policy/node_fit.hpp"
#include "policy/splitmix.hpp"

namespace unisched::policy {
namespace {

/// Node states as earlier replicas of this decision leave them, over the const views. Keyed by
/// views of the cluster's id and of the name of the view's node, which outlive the decision.
class Overlay {
 public:
  const model::NodeState& node(const std::string& cluster, const model::NodeState& original) const {
    if (changed_.empty()) {  // the first replica's draws hash nothing
      return original;
    }
    const auto found = changed_.find({cluster, original.name});
    return found == changed_.end() ? original : found->second;
  }
  void take(const std::string& cluster, const model::NodeState& original,
            const ReplicaDemand& demand, const NodeFit& fit) {
    auto [entry, inserted] = changed_.try_emplace({cluster, original.name}, original);
    policy::take(entry->second, demand, fit);
  }

 private:
  absl::node_hash_map<std::pair<std::string_view, std::string_view>, model::NodeState> changed_;
};

struct Choice {
  const ClusterCandidate* cluster = nullptr;
  const model::NodeState* node = nullptr;  // the view's node (the overlay may differ)
  NodeFit fit;
  double score = -1;
};

double weighted_score(const Policy& policy, const model::SchedulingRequestSpec& request,
                      const ReplicaDemand& demand, const ClusterCandidate& cluster,
                      const model::NodeState& node, const NodeFit& fit, CycleState& cycle) {
  double total = 0;
  for (const auto& [scorer, weight] : policy.scorers) {
    const double score = scorer->score(request, demand, cluster, node, fit, cycle);
    total += weight * (policy.whole_scores ? std::trunc(score) : score);
  }
  return total;
}

/// Whether `node` of `cluster` comes before the choice so far in cluster and node name order.
bool named_before(const ClusterCandidate& cluster, const model::NodeState& node,
                  const Choice& choice) {
  const int by_cluster = cluster.info->id.compare(choice.cluster->info->id);
  return by_cluster < 0 || (by_cluster == 0 && node.name < choice.node->name);
}

/// A node name's place in a hashed tie order: its stable hash, with the order's seed mixed in,
/// through splitmix64's finaliser so that names alike land far apart. Seed 0 is
/// TieBreak::Hashed's fixed order; fixed across runs and platforms for a given seed.
uint64_t tie_rank(const std::string& name, uint64_t order_seed) {
  return splitmix64(stable_hash(name) ^ order_seed);
}

/// Keeps the better of the choices offered; a tie is broken by the policy's TieBreak (a
/// reservoir of one for Random).
class BestChoice {
 public:
  BestChoice(const Policy& policy, const model::SchedulingRequestSpec& request,
             const ReplicaDemand& demand, const Overlay& overlay, CycleState& cycle,
             const NodeKeys& avoid)
      : policy_(policy),
        request_(request),
        demand_(demand),
        overlay_(overlay),
        cycle_(cycle),
        avoid_(avoid),
        // A run's seed is mixed first, so that seed 0 does not give the fixed order.
        order_seed_(policy.ties == TieBreak::Shuffled ? splitmix64(policy.tie_seed + kSplitmixStep)
                                                      : 0) {}

  /// Returns whether the node fits (a node to avoid never does).
  bool offer(const ClusterCandidate& cluster, const model::NodeState& original) {
    if (!avoid_.empty() && avoid_.contains({cluster.info->id, original.name})) {
      return false;
    }
    const model::NodeState& node = overlay_.node(cluster.info->id, original);
    NodeFit fit = fit_on_node(node, demand_, {policy_.share_chooser.get(), &cycle_});
    if (!fit.fits()) {
      return false;
    }
    const double score = weighted_score(policy_, request_, demand_, cluster, node, fit, cycle_);
    if (!best_ || score > best_->score) {
      best_ = Choice{&cluster, &original, std::move(fit), score};
      tied_ = 1;
      best_rank_.reset();
    } else if (score == best_->score && wins_tie(cluster, original)) {
      best_ = Choice{&cluster, &original, std::move(fit), score};
    }
    return true;
  }
  const std::optional<Choice>& best() const { return best_; }

 private:
  bool wins_tie(const ClusterCandidate& cluster, const model::NodeState& node) {
    switch (policy_.ties) {
      case TieBreak::Random:
        return cycle_.draw() % ++tied_ == 0;
      case TieBreak::Hashed:
      case TieBreak::Shuffled: {
        if (!best_rank_) {
          best_rank_ = tie_rank(best_->node->name, order_seed_);
        }
        const uint64_t rank = tie_rank(node.name, order_seed_);
        if (rank != *best_rank_) {
          const bool wins = rank < *best_rank_;
          best_rank_ = wins ? rank : *best_rank_;
          return wins;
        }
        return named_before(cluster, node, *best_);  // the same name in two clusters
      }
      case TieBreak::Name:
        break;
    }
    return named_before(cluster, node, *best_);
  }

  const Policy& policy_;
  const model::SchedulingRequestSpec& request_;
  const ReplicaDemand& demand_;
  const Overlay& overlay_;
  CycleState& cycle_;
  const NodeKeys& avoid_;
  std::optional<Choice> best_;
  uint64_t tied_ = 0;                  // offers with the best score so far
  std::optional<uint64_t> best_rank_;  // the best's tie_rank, once a tie needs it
  const uint64_t order_seed_;          // of the hashed or shuffled tie order
};

/// The nodes a replica's draws score among `nodes`; 0: every node.
size_t sample_among(const Policy& policy, size_t nodes) {
  const size_t sample = policy.node_sample > 0        ? policy.node_sample
                        : policy.adaptive_node_sample ? adaptive_node_sample(nodes)
                                                      : 0;
  return nodes > sample ? sample : 0;
}

/// The best node for one replica among `clusters`, ties broken as the policy says. With a node
/// sample, the best of that many fitting nodes drawn at random (each cluster in proportion to
/// its size); every node when the draws find none.
std::optional<Choice> best_node(const Policy& policy, const model::SchedulingRequestSpec& request,
                                const ReplicaDemand& demand,
                                const std::vector<const ClusterCandidate*>& clusters,
                                const Overlay& overlay, CycleState& cycle, const NodeKeys& avoid) {
  // Running total of nodes: cluster i holds [ends[i-1], ends[i]). On the stack for fleets of up
  // to 128 clusters: a decision made this list on the heap each time.
  absl::InlinedVector<size_t, 128> ends;
  for (const ClusterCandidate* cluster : clusters) {
    ends.push_back((ends.empty() ? 0 : ends.back()) + cluster->view->size());
  }
  const size_t nodes = ends.empty() ? 0 : ends.back();
  if (const size_t sample = sample_among(policy, nodes); sample > 0) {
    BestChoice sampled(policy, request, demand, overlay, cycle, avoid);
    size_t fitting = 0;
    // Drawn several at a time, so that their nodes are fetched together (sample_each), and never
    // more at once than the fitting nodes still wanted: when every node fits, as many are drawn
    // as one at a time.
    constexpr size_t kDrawsAtOnce = model::ClusterView::kDrawsFetchedTogether;
    std::array<model::SampleDraw, kDrawsAtOnce> draws;
    std::array<const ClusterCandidate*, kDrawsAtOnce> drawn_from{};
    std::array<const model::NodeState*, kDrawsAtOnce> drawn{};
    for (size_t draw = 0; draw < 4 * sample && fitting < sample;) {
      const size_t count = std::min({kDrawsAtOnce, 4 * sample - draw, sample - fitting});
      for (size_t i = 0; i < count; ++i) {
        const size_t at = cycle.draw() % nodes;
        const size_t index = cluster_at(ends, at);
        drawn_from[i] = clusters[index];
        draws[i] = {clusters[index]->view, cycle.draw()};
      }
      model::ClusterView::sample_each({draws.data(), count}, {drawn.data(), count});
      for (size_t i = 0; i < count; ++i) {
        if (drawn[i] != nullptr) {
          fitting += sampled.offer(*drawn_from[i], *drawn[i]) ? 1 : 0;
        }
      }
      draw += count;
    }
    if (sampled.best()) {
      return sampled.best();
    }
  }
  BestChoice every(policy, request, demand, overlay, cycle, avoid);
  for (const ClusterCandidate* cluster : clusters) {
    visit_candidates(*cluster->view, demand, [&](const model::NodeState& node) {
      every.offer(*cluster, node);
      return true;
    });
  }
  return every.best();
}

ReplicaPlacement placement_of(const Choice& choice, const ReplicaDemand& demand) {
  const auto& fit = choice.fit;
  return ReplicaPlacement{choice.cluster->info->id,
                          choice.node->name,
                          demand.cpu_milli,
                          demand.memory_bytes,
                          {fit.devices.begin(), fit.devices.end()},
                          demand.host_ports,
                          {fit.device_milli.begin(), fit.device_milli.end()},
                          choice.score};
}

/// Replica counts per weighted cluster, proportional to the weights (largest remainder).
std::map<std::string, int64_t> weighted_shares(const std::vector<model::ClusterWeight>& weights,
                                               const std::vector<const ClusterCandidate*>& feasible,
                                               int64_t replicas) {
  std::vector<std::pair<std::string, int64_t>> usable;
  int64_t total = 0;
  for (const auto& weight : weights) {
    for (const ClusterCandidate* cluster : feasible) {
      if (cluster->info->id == weight.cluster) {
        usable.emplace_back(weight.cluster, weight.weight);
        total += weight.weight;
      }
    }
  }
  std::map<std::string, int64_t> shares;
  if (total == 0) {
    return shares;
  }
  std::vector<std::pair<int64_t, std::string>> remainders;
  int64_t given = 0;
  for (const auto& [cluster, weight] : usable) {
    shares[cluster] = replicas * weight / total;
    given += shares[cluster];
    remainders.emplace_back(replicas * weight % total, cluster);
  }
  std::sort(remainders.begin(), remainders.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  for (size_t i = 0; given < replicas && i < remainders.size(); ++i, ++given) {
    ++shares[remainders[i].second];
  }
  return shares;
}

}  // namespace

const char* describe(DecisionStatus status) {
  switch (status) {
    case DecisionStatus::Placed:
      return "placed";
    case DecisionStatus::PartiallyPlaced:
      return "partially placed";
    case DecisionStatus::Unschedulable:
      return "unschedulable";
  }
  return "unknown";
}

std::vector<std::string> Decision::reasons() const {
  std::vector<std::string> lines;
  for (const auto& diagnosis : diagnoses) {
    lines.push_back(diagnosis.cluster + ": " + diagnosis.plugin + ": " + diagnosis.reason);
  }
  return lines;
}

std::string Decision::explain() const {
  std::string text = describe(status);
  std::string separator = ": ";
  for (const std::string& line : reasons()) {
    text += separator + line;
    separator = "; ";
  }
  return text;
}

namespace {

/// Step 1: the clusters that may take the request at all; the others' refusals go to `decision`.
/// `by_totals`: each filter as far as the clusters' totals tell (ClusterFilter::reject_by_totals).
std::vector<const ClusterCandidate*> filter_clusters(const model::SchedulingRequestSpec& request,
                                                     const ReplicaDemand& demand,
                                                     const std::vector<ClusterCandidate>& clusters,
                                                     const Policy& policy, bool by_totals,
                                                     Decision& decision) {
  absl::InlinedVector<const ClusterFilter*, 8> asked;  // those that may refuse a cluster
  for (const auto& filter : policy.filters) {
    if (!filter->passes_every_cluster(request)) {
      asked.push_back(filter.get());
    }
  }
  std::vector<const ClusterCandidate*> feasible;
  feasible.reserve(clusters.size());
  for (const ClusterCandidate& cluster : clusters) {
    std::optional<std::string> refusal;
    for (const ClusterFilter* filter : asked) {
      if ((refusal = by_totals ? filter->reject_by_totals(request, demand, cluster)
                               : filter->reject(request, demand, cluster))) {
        decision.diagnoses.push_back({cluster.info->id, filter->name(), *refusal});
        break;
      }
    }
    if (!refusal) {
      feasible.push_back(&cluster);
    }
  }
  return feasible;
}

size_t fleet_size(const std::vector<ClusterCandidate>& clusters) {
  size_t nodes = 0;
  for (const ClusterCandidate& cluster : clusters) {
    nodes += cluster.view->size();
  }
  return nodes;
}

/// Step 2: places replica after replica, each on the best node its distribution allows.
class ReplicaPlacer {
 public:
  ReplicaPlacer(const model::SchedulingRequestSpec& request, const ReplicaDemand& demand,
                const Policy& policy, CycleState& cycle, const NodeKeys& avoid)
      : request_(request), demand_(demand), policy_(policy), cycle_(cycle), avoid_(avoid) {}

  /// Whether `count` replicas fit on `allowed`; what fits is appended to `out` either way.
  bool place_in(const std::vector<const ClusterCandidate*>& allowed, int64_t count,
                Overlay& overlay, std::vector<ReplicaPlacement>& out) {
    for (int64_t i = 0; i < count; ++i) {
      const auto choice = best_node(policy_, request_, demand_, allowed, overlay, cycle_, avoid_);
      if (!choice) {
        return false;
      }
      overlay.take(choice->cluster->info->id,
                   overlay.node(choice->cluster->info->id, *choice->node), demand_, choice->fit);
      out.push_back(placement_of(*choice, demand_));
    }
    return true;
  }

  /// Every replica in one cluster: the first (best for the first replica) that holds them all.
  bool place_together(const std::vector<const ClusterCandidate*>& feasible, Decision& decision) {
    std::vector<std::pair<double, const ClusterCandidate*>> order;
    for (const ClusterCandidate* cluster : feasible) {
      const auto first =
          best_node(policy_, request_, demand_, {cluster}, Overlay{}, cycle_, avoid_);
      order.emplace_back(first ? first->score : -1.0, cluster);
    }
    std::stable_sort(order.begin(), order.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    for (const auto& [score, cluster] : order) {
      Overlay trial;
      std::vector<ReplicaPlacement> placements;
      if (place_in({cluster}, request_.replicas, trial, placements)) {
        decision.placements = std::move(placements);
        return true;
      }
      decision.diagnoses.push_back(
          {cluster->info->id, "distribution",
           "cannot hold all " + std::to_string(request_.replicas) + " replicas together"});
    }
    return false;
  }

  /// Each weighted cluster its share of the replicas.
  bool place_weighted(const std::vector<const ClusterCandidate*>& feasible, Decision& decision) {
    const auto shares = weighted_shares(request_.distribution.weights, feasible, request_.replicas);
    if (shares.empty()) {
      decision.diagnoses.push_back({"*", "distribution", "no weighted cluster passes the filters"});
      return false;
    }
    bool complete = true;
    Overlay overlay;
    for (const auto& [cluster_id, share] : shares) {
      const auto cluster =
          std::find_if(feasible.begin(), feasible.end(),
                       [&, &id = cluster_id](const auto* c) { return c->info->id == id; });
      if (!place_in({*cluster}, share, overlay, decision.placements)) {
        decision.diagnoses.push_back(
            {cluster_id, "distribution", "holds fewer than its share of " + std::to_string(share)});
        complete = false;
      }
    }
    return complete;
  }

  /// Each replica wherever it fits best.
  bool place_anywhere(const std::vector<const ClusterCandidate*>& feasible, Decision& decision) {
    Overlay overlay;
    const bool complete = place_in(feasible, request_.replicas, overlay, decision.placements);
    if (!complete && !feasible.empty()) {
      decision.diagnoses.push_back(shortfall(decision));
    }
    return complete;
  }

  ClusterDiagnosis shortfall(const Decision& decision) const {
    return {"*", "distribution",
            std::to_string(decision.placements.size()) + " of " +
                std::to_string(request_.replicas) +
                " replicas fit on the clusters that pass the filters"};
  }

 private:
  const model::SchedulingRequestSpec& request_;
  const ReplicaDemand& demand_;
  const Policy& policy_;
  CycleState& cycle_;
  const NodeKeys& avoid_;
};

}  // namespace

Decision decide(const model::SchedulingRequestSpec& request,
                const std::vector<ClusterCandidate>& clusters, const Policy& policy,
                uint64_t sample_seed, const NodeKeys& avoid) {
  Decision decision;
  CycleState cycle(sample_seed);
  const ReplicaDemand demand = demand_of(request);
  for (const auto& observer : policy.observers) {
    observer->arriving(demand, request.replicas);
  }
  // A sampled decision of replicas that may go anywhere filters by the clusters' totals alone:
  // the exact test would look for a fitting node in every cluster (a third of such a decision at
  // 100 clusters), which its draws do anyway. Should it fall short, the exact test says why.
  const bool anywhere = request.distribution.mode != model::DistributionMode::Together &&
                        request.distribution.weights.empty();
  const bool by_totals = anywhere && sample_among(policy, fleet_size(clusters)) > 0;
  const auto feasible = filter_clusters(request, demand, clusters, policy, by_totals, decision);
  ReplicaPlacer placer(request, demand, policy, cycle, avoid);
  const bool complete = request.distribution.mode == model::DistributionMode::Together
                            ? placer.place_together(feasible, decision)
                        : !anywhere ? placer.place_weighted(feasible, decision)
                                    : placer.place_anywhere(feasible, decision);
  if (!complete && by_totals) {
    decision.diagnoses.clear();
    if (!filter_clusters(request, demand, clusters, policy, false, decision).empty()) {
      decision.diagnoses.push_back(placer.shortfall(decision));
    }
  }
  // 3. Decide: a gang is all or nothing.
  if (complete) {
    decision.status = DecisionStatus::Placed;
    decision.diagnoses.clear();
  } else if (request.distribution.gang || decision.placements.empty()) {
    decision.placements.clear();
    decision.status = DecisionStatus::Unschedulable;
  } else {
    decision.status = DecisionStatus::PartiallyPlaced;
  }
  return decision;
}

}  // namespace unisched::policy
