#include "simulation/observed_cluster.hpp"

#include <algorithm>
#include <limits>

namespace unisched::simulation {
namespace {

constexpr int64_t kUntilReleased = std::numeric_limits<int64_t>::max();
constexpr double kServiceShare = 0.15;
constexpr size_t kEndedKept = 256;

}  // namespace

ObservedCluster::ObservedCluster(std::unique_ptr<adapters::SimulatedCluster> inner,
                                 Observer& observer, std::function<int64_t()> now_ms, uint64_t seed,
                                 int64_t min_run_ms, int64_t max_run_ms)
    : inner_(std::move(inner)),
      observer_(observer),
      now_ms_(std::move(now_ms)),
      random_(seed),
      min_run_ms_(min_run_ms),
      max_run_ms_(max_run_ms),
      cluster_id_(inner_->profile().spec.cluster_id) {
  observer_.add_cluster(cluster_id_, inner_->list_nodes());
}

adapters::PlacementOutcome ObservedCluster::apply(const adapters::Placement& placement) {
  const adapters::PlacementOutcome outcome = inner_->apply(placement);
  observer_.on_apply(cluster_id_, placement, outcome);
  if (outcome == adapters::PlacementOutcome::Applied) {
    const bool service = std::uniform_real_distribution<double>(0, 1)(random_) < kServiceShare;
    ends_[placement.id] = service ? kUntilReleased
                                  : now_ms_() + std::uniform_int_distribution<int64_t>(
                                                    min_run_ms_, max_run_ms_)(random_);
  }
  return outcome;
}

bool ObservedCluster::release(const std::string& placement_id) {
  const bool released = inner_->release(placement_id);
  if (released) {
    observer_.on_gone(cluster_id_, placement_id, false);
    ends_.erase(placement_id);
  }
  return released;
}

std::vector<model::NodeState> ObservedCluster::list_nodes() const {
  listed_ = true;
  return inner_->list_nodes();
}

std::vector<std::string> ObservedCluster::poll_finished() {
  std::vector<std::string> finished;
  if (listed_) {
    finished = ended_;  // a new reader: what ended before it came
    listed_ = false;
  }
  const int64_t now = now_ms_();
  for (auto it = ends_.begin(); it != ends_.end();) {
    if (it->second <= now && inner_->release(it->first)) {
      observer_.on_gone(cluster_id_, it->first, true);
      finished.push_back(it->first);
      ended_.push_back(it->first);
      if (ended_.size() > kEndedKept) {
        ended_.erase(ended_.begin());
      }
      it = ends_.erase(it);
    } else {
      ++it;
    }
  }
  return finished;
}

size_t ObservedCluster::finite_work_running() const {
  return static_cast<size_t>(std::count_if(ends_.begin(), ends_.end(), [](const auto& entry) {
    return entry.second != kUntilReleased;
  }));
}

}  // namespace unisched::simulation
