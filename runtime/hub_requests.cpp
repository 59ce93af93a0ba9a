#include "runtime/hub_requests.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

#include "model/request_attempt.hpp"

namespace unisched::runtime {

void HubCommands::append(HubCommands&& later) {
  for (auto& submission : later.submissions) {
    submissions.push_back(std::move(submission));
  }
  answers.insert(answers.end(), later.answers.begin(), later.answers.end());
  for (GivenUp& given : later.given_up) {
    given_up.push_back(std::move(given));
  }
  decided_again += later.decided_again;
  journal_failed = journal_failed || later.journal_failed;
}

HubRequests::HubRequests(std::shared_ptr<RequestBook> book, std::vector<uint64_t> schedulers)
    : book_(std::move(book)), schedulers_(std::move(schedulers)) {}

HubCommands HubRequests::start(const std::set<std::string>& declared, Clock::time_point deadline) {
  HubCommands out;
  // Requests undecided at the restart may have placements running from their earlier attempt:
  // released now (the supervisor tells each cluster as it comes back).
  HubCommands::GivenUp replaced{{}, "the hub restarted while they were decided"};
  RestartGate::Work held;
  for (RequestBook::Retry& retry : book_->take_recovered()) {
    replaced.ids.push_back(std::move(retry.replaced));
    held.push_back(std::move(retry.work));
  }
  const v1::RequestList recovered = book_->list();
  for (const v1::RequestStatus& status : recovered.requests()) {
    if (status.recovered()) {
      reconciliation_.follow(status);
    }
  }
  if (held.empty()) {
    return out;
  }
  out.decided_again = held.size();
  out.given_up.push_back(std::move(replaced));
  // Decided on views that hold what the clusters run, not before the clusters are back.
  std::set<std::string> awaited = declared;
  for (const v1::RequestStatus& status : recovered.requests()) {
    for (const auto& replica : status.decision().replicas()) {
      awaited.insert(replica.cluster());
    }
  }
  gate_.close(std::move(held), std::move(awaited), deadline);
  return out;
}

HubCommands HubRequests::cluster_synced(const std::string& cluster) {
  return dispatch(gate_.cluster_synced(cluster));
}

HubCommands HubRequests::tick(Clock::time_point now) {
  return dispatch(gate_.tick(now));
}

HubCommands HubRequests::schedule(std::vector<RequestBook::ToSchedule> work) {
  if (gate_.closed()) {  // behind the requests undecided at the restart, which go first
    gate_.hold(std::move(work));
    return {};
  }
  return dispatch(std::move(work));
}

HubCommands HubRequests::dispatch(std::vector<RequestBook::ToSchedule> work) {
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

bool HubRequests::current(const std::string& attempt_key) const {
  return book_->attempt_of(model::parse_attempt_key(attempt_key).request) == attempt_key;
}

bool HubRequests::superseded(const std::string& attempt_key) const {
  const std::string now = book_->attempt_of(model::parse_attempt_key(attempt_key).request);
  return !now.empty() && now != attempt_key;
}

HubCommands HubRequests::record(uint64_t scheduler, const v1::SchedulingDecision& decision) {
  HubCommands out;
  if (superseded(decision.request_id())) {
    // An earlier attempt's answer, late: what it placed goes.
    out.given_up.push_back({{decision.request_id()}, "an earlier attempt of a request"});
    return out;
  }
  const std::string request = model::parse_attempt_key(decision.request_id()).request;
  book_->decide(decision);
  if (const v1::RequestStatus* status = book_->find(request)) {
    reconciliation_.decided(*status, scheduler);
  }
  out.answers.push_back(request);
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

HubCommands HubRequests::not_decided(uint64_t scheduler, const std::string& attempt_key,
                                     const std::string& error) {
  // A scheduler answers every submission: no answer means it stopped (its stop may be reported
  // after this), so it takes no more work.
  schedulers_.erase(std::remove(schedulers_.begin(), schedulers_.end(), scheduler),
                    schedulers_.end());
  if (const auto deciding = in_flight_.find(scheduler); deciding != in_flight_.end()) {
    deciding->second.erase(attempt_key);
  }
  if (!current(attempt_key)) {
    return {};  // decided again already (its scheduler's stop came first)
  }
  return decide_again({model::parse_attempt_key(attempt_key).request},
                      "decided again: its scheduler did not answer (" + error + ")");
}

HubCommands HubRequests::decide_again(const std::vector<std::string>& request_ids,
                                      const std::string& reason) {
  HubCommands out;
  HubCommands::GivenUp replaced{{}, reason};
  std::vector<RequestBook::ToSchedule> work;
  for (RequestBook::Retry& retry : book_->retry(request_ids, reason)) {
    reconciliation_.forget(model::parse_attempt_key(retry.work.id).request);
    replaced.ids.push_back(std::move(retry.replaced));
    work.push_back(std::move(retry.work));
  }
  if (work.empty()) {
    return out;
  }
  out = schedule(std::move(work));
  out.decided_again = replaced.ids.size();
  out.given_up.push_back(std::move(replaced));
  out.journal_failed = book_->journal_failed();
  return out;
}

HubCommands HubRequests::changed(uint64_t scheduler, const v1::SchedulingDecision& decision) {
  if (superseded(decision.request_id())) {
    return record(scheduler, decision);  // releases what the earlier attempt placed
  }
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
  if (const auto deciding = in_flight_.find(scheduler); deciding != in_flight_.end()) {
    std::vector<std::string> requests;
    for (const std::string& key : deciding->second) {
      if (current(key)) {
        requests.push_back(model::parse_attempt_key(key).request);
      }
    }
    in_flight_.erase(deciding);
    out = decide_again(requests,
                       "decided again: its scheduler stopped before deciding it (or while "
                       "placing a refused replica again)");
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
  for (const Reconciliation::GiveUp& request : requests) {
    out.append(decide_again({request.request_id}, "decided again: " + request.reason));
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
  const std::string key = book_->attempt_of(request_id);
  return std::any_of(in_flight_.begin(), in_flight_.end(),
                     [&](const auto& scheduler) { return scheduler.second.count(key) > 0; });
}

size_t HubRequests::in_flight() const {
  size_t count = 0;
  for (const auto& [scheduler, ids] : in_flight_) {
    count += ids.size();
  }
  return count;
}

}  // namespace unisched::runtime
