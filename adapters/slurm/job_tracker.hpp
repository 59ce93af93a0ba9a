// The placements a Slurm cluster carries out as batch jobs, and how each ends: applied once its
// job runs on the chosen node; refused when the job fails or is cancelled first, or when it is
// still pending after a bounded wait (the cluster's own users took the resources). Plain C++,
// fed the jobs as Slurm lists them, so it is tested without daemons.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "adapters/cluster_adapter.hpp"
#include "adapters/slurm/slurm_api.hpp"

namespace unisched::adapters::slurm {

class JobTracker {
 public:
  using Clock = std::chrono::steady_clock;

  explicit JobTracker(std::chrono::milliseconds pending_limit) : pending_limit_(pending_limit) {}

  /// The comment a placement's job carries, and the placement a comment names (after a restart,
  /// the agent finds its jobs again by it).
  static std::string comment_for(const std::string& placement);
  static std::optional<std::string> placement_in(const std::string& comment);

  bool knows(const std::string& placement) const { return placements_.count(placement) > 0; }
  /// Every placement whose job runs or pends, adopted ones included.
  std::vector<std::string> placements() const;
  void submitted(const std::string& placement, uint32_t job, const std::string& node,
                 Clock::time_point now);
  /// Slurm refused to take the job at all.
  void refuse(const std::string& placement, const std::string& reason);

  /// Slurm's jobs now: placements whose job runs on their node are applied, those whose job
  /// ended first are refused, those whose job ended after running are forgotten. Jobs of ours
  /// not tracked yet (an agent that restarted) are adopted, as running or pending.
  void on_jobs(const std::vector<SlurmJob>& jobs, Clock::time_point now);

  /// A placement refused while its job is still listed: the job to cancel, and the refusal to
  /// report once it is cancelled.
  struct Cancellation {
    uint32_t job = 0;
    LaterOutcome outcome;
  };

  /// Refuses the placements pending longer than the limit, and those that ran where they should
  /// not. Their refusals are not among take_outcomes() until the caller, having cancelled the
  /// job, hands each back to report(): until then Slurm may still list the job as pending, and
  /// an agent restarting in between would adopt it again.
  std::vector<Cancellation> expire(Clock::time_point now);
  void report(LaterOutcome outcome) { outcomes_.push_back(std::move(outcome)); }

  /// The job to cancel to release `placement`; nullopt when it is not running here.
  std::optional<uint32_t> release(const std::string& placement);

  std::vector<LaterOutcome> take_outcomes();

  /// Placements whose job ended after it ran (completed, failed, timed out; or no longer listed),
  /// since the previous call; never those released here.
  std::vector<std::string> take_finished() { return std::exchange(finished_, {}); }

 private:
  struct Tracked {
    uint32_t job = 0;
    std::string node;
    Clock::time_point submitted;
    bool running = false;
    std::string waiting_for;  // the job's reason while it pends
  };

  std::chrono::milliseconds pending_limit_;
  std::map<std::string, Tracked> placements_;
  std::vector<LaterOutcome> outcomes_;
  std::vector<Cancellation> to_cancel_;
  std::vector<std::string> finished_;
};

}  // namespace unisched::adapters::slurm
