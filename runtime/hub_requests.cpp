#include "runtime/hub_requests.hpp"

#include <algorithm>

namespace unisched::runtime {

HubRequests::HubRequests(std::shared_ptr<RequestBook> book, std::vector<uint64_t> schedulers)
    : book_(std::move(book)), schedulers_(std::move(schedulers)) {}

HubCommands HubRequests::start() {
  HubCommands out;
  // Requests recovered as LOST may have placements running from before the restart.
  std::vector<std::string> lost = book_->lost_ids();
  if (!lost.empty()) {
    out.given_up.push_back({std::move(lost), "recovered as LOST after a restart"});
  }
  const v1::RequestList recovered = book_->list();
  for (const v1::RequestStatus& status : recovered.requests()) {
    if (status.recovered()) {
      reconciliation_.follow(status);
    }
  }
  return out;
}

HubCommands HubRequests::schedule(std::vector<RequestBook::ToSchedule> work) {
  HubCommands out;
  if (schedulers_.empty()) {
    return out;
  }
  for (RequestBook::ToSchedule& request : work) {
    const uint64_t scheduler = schedulers_[next_scheduler_++ % schedulers_.size()];
    in_flight_[scheduler].insert(request.id);
    out.submissions.emplace_back(scheduler, std::move(request));
  }
  return out;
}

HubCommands HubRequests::record(uint64_t scheduler, const v1::SchedulingDecision& decision) {
  book_->decide(decision);
  if (const v1::RequestStatus* status = book_->find(decision.request_id())) {
    reconciliation_.decided(*status, scheduler);
  }
  HubCommands out;
  out.answers.push_back(decision.request_id());
  out.journal_failed = book_->journal_failed();
  return out;
}

HubCommands HubRequests::decided(uint64_t scheduler, const v1::SchedulingDecision& decision) {
  // Found, not made: a stopped scheduler's late answer must not bring its entry back.
  if (const auto deciding = in_flight_.find(scheduler); deciding != in_flight_.end()) {
    deciding->second.erase(decision.request_id());
  }
  return record(scheduler, decision);
}

HubCommands HubRequests::not_decided(uint64_t scheduler, const std::string& request_id,
                                     const std::string& error) {
  v1::SchedulingDecision failed;
  failed.set_request_id(request_id);
  failed.set_status(v1::SchedulingDecision::UNSCHEDULABLE);
  failed.add_reasons("scheduler: " + error);
  return decided(scheduler, failed);
}

HubCommands HubRequests::changed(uint64_t scheduler, const v1::SchedulingDecision& decision) {
  std::set<std::string>& deciding = in_flight_[scheduler];
  if (decision.replacing() > 0) {
    deciding.insert(decision.request_id());
  } else {
    deciding.erase(decision.request_id());
  }
  return record(scheduler, decision);
}

/// Found by `unisched simulate --faults scheduler-crash`: a stopped scheduler's requests ran on,
/// and with `drop` stayed PENDING for ever; with `cluster-actor-crash`, orders a restarted
/// ClusterActor forgot never ran.
HubCommands HubRequests::scheduler_stopped(uint64_t scheduler) {
  schedulers_.erase(std::remove(schedulers_.begin(), schedulers_.end(), scheduler),
                    schedulers_.end());
  HubCommands out;
  const auto deciding = in_flight_.find(scheduler);
  if (deciding != in_flight_.end()) {
    const std::set<std::string> ids = std::move(deciding->second);
    in_flight_.erase(deciding);
    HubCommands::GivenUp lost{{}, "their scheduler stopped"};
    for (const std::string& id : ids) {
      if (book_->lose(id,
                      "its scheduler stopped before deciding it (or while placing a refused "
                      "replica again); what it placed is released; submit it again under a "
                      "new name")) {
        reconciliation_.forget(id);
        out.answers.push_back(id);
        lost.ids.push_back(id);
      }
    }
    if (!lost.ids.empty()) {
      out.given_up.push_back(std::move(lost));
    }
  }
  for (const std::string& id : reconciliation_.scheduler_stopped(scheduler)) {
    if (const v1::RequestStatus* status = book_->find(id)) {
      reconciliation_.follow(*status);
    }
  }
  return out;
}

HubCommands HubRequests::give_up(const std::vector<Reconciliation::GiveUp>& requests) {
  HubCommands out;
  HubCommands::GivenUp lost{{}, "a placement of theirs will never run"};
  for (const Reconciliation::GiveUp& request : requests) {
    if (book_->lose(request.request_id, request.reason)) {
      out.answers.push_back(request.request_id);
      lost.ids.push_back(request.request_id);
    }
  }
  if (!lost.ids.empty()) {
    out.given_up.push_back(std::move(lost));
  }
  return out;
}

void HubRequests::finished(const std::string& cluster,
                           const std::vector<std::string>& placement_ids) {
  for (const std::string& id : book_->finish(cluster, placement_ids)) {
    const v1::RequestStatus* status = book_->find(id);
    if (status != nullptr && status->phase() == v1::RequestStatus::FINISHED) {
      reconciliation_.forget(id);
    }
  }
}

bool HubRequests::deciding(const std::string& request_id) const {
  return std::any_of(in_flight_.begin(), in_flight_.end(),
                     [&](const auto& scheduler) { return scheduler.second.count(request_id) > 0; });
}

size_t HubRequests::in_flight() const {
  size_t count = 0;
  for (const auto& [scheduler, ids] : in_flight_) {
    count += ids.size();
  }
  return count;
}

}  // namespace unisched::runtime
