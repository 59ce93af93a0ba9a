// A simulated cluster as the simulation runs it: each placement passes the observer's ledger on
// its way in and out, and its work ends by itself a seeded while after it started, as a real
// job's would; some (services) run until they are released. Ended work stays visible for a
// while, as completed pods do, so an agent that starts over learns of what ended while it was
// down. The cluster outlives its agents: an agent that crashes and starts again finds the
// same placements running.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "adapters/simulated_cluster.hpp"
#include "simulation/observer.hpp"

namespace unisched::simulation {

class ObservedCluster final : public adapters::ClusterAdapter {
 public:
  /// `now_ms` reads the run's virtual clock; work lasts between the two durations.
  ObservedCluster(std::unique_ptr<adapters::SimulatedCluster> inner, Observer& observer,
                  std::function<int64_t()> now_ms, uint64_t seed, int64_t min_run_ms,
                  int64_t max_run_ms);

  const model::ClusterResourceProfile& profile() const override { return inner_->profile(); }
  /// A listing is what an agent that starts over reads first; the ended work it then finds
  /// (as Kubernetes keeps completed pods) the next poll_finished() reports again.
  std::vector<model::NodeState> list_nodes() const override;
  std::vector<model::NodeChange> poll_changes() override { return inner_->poll_changes(); }
  model::ClusterResources resources() const override { return inner_->resources(); }
  adapters::PlacementOutcome apply(const adapters::Placement& placement) override;
  bool release(const std::string& placement_id) override;
  std::vector<std::string> running_placements() const override {
    return inner_->running_placements();
  }
  std::vector<std::string> poll_finished() override;

  /// Placements running now whose work ends by itself (the others run until released).
  size_t finite_work_running() const;

 private:
  std::unique_ptr<adapters::SimulatedCluster> inner_;
  Observer& observer_;
  std::function<int64_t()> now_ms_;
  std::mt19937_64 random_;
  int64_t min_run_ms_;
  int64_t max_run_ms_;
  std::string cluster_id_;
  std::map<std::string, int64_t> ends_;  // placement id -> when its work ends
  std::vector<std::string> ended_;       // work that ended, oldest first (the last kEndedKept)
  mutable bool listed_ = false;          // a listing happened since the last poll_finished()
};

}  // namespace unisched::simulation
