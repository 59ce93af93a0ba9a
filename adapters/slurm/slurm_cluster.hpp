// A Slurm cluster behind the adapter contract, read through libslurm (adapters/slurm/slurm_api):
// a poller thread loads the nodes when slurmctld says they changed, and poll_changes() reports
// each node whose state the centre would see differently (Slurm's ping "changes" are dropped
// by comparing). Placements run as batch jobs pinned to their node (adapters/slurm/job_tracker
// follows them); Slurm picks the GPU indexes, and the view follows Slurm's.
#pragma once

#include <absl/status/statusor.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "adapters/cluster_adapter.hpp"
#include "adapters/slurm/job_tracker.hpp"
#include "adapters/slurm/slurm_api.hpp"

namespace unisched::adapters::slurm {

struct SlurmOptions {
  std::string slurm_conf;            ///< empty: $SLURM_CONF or Slurm's default
  std::string cluster_id;            ///< empty: Slurm's ClusterName, made a DNS-1123 label
  std::set<std::string> partitions;  ///< only nodes of these; empty: every node
  std::chrono::milliseconds poll_interval{500};
  /// A placement whose job still pends after this is refused (and its job cancelled).
  std::chrono::milliseconds pending_limit{5000};
  std::string work_dir = "/tmp";  ///< where jobs start and write unisched-JOBID.out
};

class SlurmCluster final : public ClusterAdapter {
 public:
  /// Reaches slurmctld and lists the nodes once; an error says why it cannot.
  static absl::StatusOr<std::unique_ptr<SlurmCluster>> connect(SlurmOptions options);
  ~SlurmCluster() override;
  SlurmCluster(const SlurmCluster&) = delete;
  SlurmCluster& operator=(const SlurmCluster&) = delete;

  const model::ClusterResourceProfile& profile() const override { return profile_; }
  std::vector<model::NodeState> list_nodes() const override;
  std::vector<model::NodeChange> poll_changes() override;
  model::ClusterResources resources() const override { return {}; }
  /// Submits the placement's batch job; the answer comes later (poll_outcomes).
  PlacementOutcome apply(const Placement& placement) override;
  std::vector<LaterOutcome> poll_outcomes() override;
  std::vector<std::string> poll_finished() override;
  /// Cancels the placement's job.
  bool release(const std::string& placement_id) override;
  std::vector<std::string> running_placements() const override;

  /// Loads that reported a change, and nodes skipped because Slurm sent what cannot be read.
  uint64_t loads() const { return loads_.load(); }
  uint64_t skipped() const { return skipped_.load(); }

 private:
  SlurmCluster(SlurmApi api, SlurmOptions options);
  absl::Status load();       // one poll of slurmctld's nodes
  absl::Status load_jobs();  // and of its jobs, deciding pending placements
  std::optional<JobRequest> job_for(const Placement& placement, std::string& problem) const;
  /// Calls libslurm through `api_`, one call at a time: the poller and apply() both use it.
  template <class Call>
  auto with_api(Call call) {
    std::lock_guard<std::mutex> guard(api_mutex_);
    return call(api_);
  }
  void poll_until_stopped();

  std::mutex api_mutex_;  // see with_api()
  SlurmApi api_;
  SlurmOptions options_;
  model::ClusterResourceProfile profile_;
  mutable std::mutex mutex_;
  std::map<std::string, model::NodeState> current_;   // as Slurm last said
  std::map<std::string, model::NodeState> reported_;  // as poll_changes() last reported
  // name -> why, logged once per reason; only load() touches it (connect(), then the poller)
  std::map<std::string, std::string> skipped_nodes_;
  JobTracker jobs_;
  std::atomic<uint64_t> loads_{0};
  std::atomic<uint64_t> skipped_{0};
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread poller_;
};

}  // namespace unisched::adapters::slurm
