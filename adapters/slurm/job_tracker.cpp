#include "adapters/slurm/job_tracker.hpp"

#include <set>

namespace unisched::adapters::slurm {
namespace {

constexpr const char* kCommentPrefix = "unisched.io/placement-id=";

bool ended(const std::string& state) {
  return state != "PENDING" && state != "RUNNING" && state != "SUSPENDED";
}

}  // namespace

std::string JobTracker::comment_for(const std::string& placement) {
  return kCommentPrefix + placement;
}

std::optional<std::string> JobTracker::placement_in(const std::string& comment) {
  const std::string prefix = kCommentPrefix;
  if (comment.compare(0, prefix.size(), prefix) != 0 || comment.size() == prefix.size()) {
    return std::nullopt;
  }
  return comment.substr(prefix.size());
}

void JobTracker::submitted(const std::string& placement, uint32_t job, const std::string& node,
                           Clock::time_point now) {
  placements_[placement] = Tracked{job, node, now, false, {}};
}

void JobTracker::refuse(const std::string& placement, const std::string& reason) {
  placements_.erase(placement);
  outcomes_.push_back({placement, PlacementOutcome::DoesNotFit, reason});
}

void JobTracker::on_jobs(const std::vector<SlurmJob>& jobs, Clock::time_point now) {
  std::set<std::string> seen;
  for (const SlurmJob& job : jobs) {
    const auto placement = placement_in(job.comment);
    if (!placement) {
      continue;
    }
    seen.insert(*placement);
    auto found = placements_.find(*placement);
    if (found == placements_.end()) {
      if (!ended(job.state)) {  // ours from before a restart: followed again, not duplicated
        placements_[*placement] = Tracked{job.id, job.nodes, now, job.state == "RUNNING", {}};
      }
      continue;
    }
    Tracked& tracked = found->second;
    if (job.id != tracked.job) {
      continue;  // an older job of the same placement id
    }
    if (ended(job.state)) {
      if (!tracked.running) {
        outcomes_.push_back({*placement, PlacementOutcome::DoesNotFit,
                             "slurm job " + std::to_string(job.id) + " ended " + job.state +
                                 " before it ran (" + job.reason + ")"});
      } else {
        finished_.push_back(*placement);  // its work ended by itself
      }
      placements_.erase(found);
    } else if (job.state == "RUNNING" && !tracked.running && job.nodes == tracked.node) {
      tracked.running = true;
      outcomes_.push_back({*placement, PlacementOutcome::Applied, {}});
    } else if (job.state == "RUNNING" && !tracked.running) {
      to_cancel_.push_back({job.id,
                            {*placement, PlacementOutcome::NoSuchNode,
                             "slurm ran job " + std::to_string(job.id) + " on " + job.nodes +
                                 ", not on " + tracked.node}});
      placements_.erase(found);
    } else if (job.state == "PENDING") {
      tracked.waiting_for = job.reason;
    }
  }
  // A job Slurm no longer lists (older than MinJobAge) has ended.
  for (auto it = placements_.begin(); it != placements_.end();) {
    if (seen.count(it->first) == 0 && it->second.running) {
      finished_.push_back(it->first);
      it = placements_.erase(it);
    } else {
      ++it;
    }
  }
}

std::vector<JobTracker::Cancellation> JobTracker::expire(Clock::time_point now) {
  std::vector<Cancellation> cancel;
  cancel.swap(to_cancel_);
  for (auto it = placements_.begin(); it != placements_.end();) {
    const Tracked& tracked = it->second;
    if (tracked.running || now - tracked.submitted < pending_limit_) {
      ++it;
      continue;
    }
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(pending_limit_).count();
    cancel.push_back({tracked.job,
                      {it->first, PlacementOutcome::DoesNotFit,
                       "slurm job " + std::to_string(tracked.job) + " still pending after " +
                           std::to_string(seconds) + " s (" +
                           (tracked.waiting_for.empty() ? "no reason given" : tracked.waiting_for) +
                           "): the cluster's own work took the resources"}});
    it = placements_.erase(it);
  }
  return cancel;
}

std::vector<std::string> JobTracker::placements() const {
  std::vector<std::string> ids;
  ids.reserve(placements_.size());
  for (const auto& [id, tracked] : placements_) {
    ids.push_back(id);
  }
  return ids;
}

std::optional<uint32_t> JobTracker::release(const std::string& placement) {
  const auto found = placements_.find(placement);
  if (found == placements_.end()) {
    return std::nullopt;
  }
  const uint32_t job = found->second.job;
  placements_.erase(found);
  return job;
}

std::vector<LaterOutcome> JobTracker::take_outcomes() {
  std::vector<LaterOutcome> taken;
  taken.swap(outcomes_);
  return taken;
}

}  // namespace unisched::adapters::slurm
