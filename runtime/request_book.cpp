#include "runtime/request_book.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "model/request_attempt.hpp"
#include "runtime/journal_store.hpp"
#include "runtime/manifest_loader.hpp"

namespace unisched::runtime {
namespace {

int64_t now_unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

v1::RequestStatus::Phase phase_of(v1::SchedulingDecision::Status status) {
  switch (status) {
    case v1::SchedulingDecision::PLACED:
      return v1::RequestStatus::PLACED;
    case v1::SchedulingDecision::PARTIALLY_PLACED:
      return v1::RequestStatus::PARTIALLY_PLACED;
    case v1::SchedulingDecision::QUEUED:
      return v1::RequestStatus::QUEUED;
    default:
      return v1::RequestStatus::UNSCHEDULABLE;
  }
}

}  // namespace

RequestBook::RequestBook(std::shared_ptr<RecordStore> store, size_t capacity)
    : store_(std::move(store)), capacity_(capacity) {}

RequestBook::RequestBook(const std::string& journal_path, size_t capacity)
    : RequestBook(journal_path.empty() ? nullptr : std::make_shared<JournalStore>(journal_path),
                  capacity) {}

std::string RequestBook::store_name() const {
  return store_ ? store_->where() : std::string();
}

void RequestBook::note_decided(const std::string& id) {
  const auto order = accepted_at_.find(id);
  if (order != accepted_at_.end()) {
    decided_.emplace(order->second, id);
  }
}

bool RequestBook::make_room() {
  if (requests_.size() < capacity_) {
    return true;
  }
  if (decided_.empty()) {
    ++refused_full_;
    return false;
  }
  const std::string oldest = decided_.begin()->second;
  decided_.erase(decided_.begin());
  requests_.erase(oldest);
  accepted_at_.erase(oldest);
  ended_early_.erase(oldest);
  ++forgotten_;
  return true;
}

absl::Status RequestBook::recover(bool skip_damaged, std::vector<std::string>& warnings) {
  if (!store_) {
    return absl::OkStatus();
  }
  auto contents = store_->open(skip_damaged, warnings);
  if (!contents.ok()) {
    return contents.status();
  }
  // In the order they were accepted: the order of their first records (a request's first
  // record is its acceptance, and a rewrite keeps that order). Not by their acceptance times,
  // which a wall clock gives: replays must not depend on it.
  std::vector<std::string> accepted;
  for (const std::string& bytes : *contents) {
    v1::RequestStatus record;
    if (!record.ParseFromString(bytes) || record.request_id().empty()) {
      return absl::DataLossError(store_->where() +
                                 ": an intact record is not a request status; refusing to start");
    }
    auto [entry, first] = requests_.try_emplace(record.request_id());
    if (first) {
      accepted.push_back(record.request_id());
    }
    entry->second = std::move(record);
  }
  // Requests a scheduler was still deciding (or placing a refused replica of again, found by
  // `unisched simulate`, seed 9293) are decided afresh, under their next attempt; the first
  // accepted goes first, so work waiting for quota keeps its place in line.
  RecordStore::Keyed compact;
  for (const std::string& id : accepted) {
    accepted_at_[id] = sequence_++;
    v1::RequestStatus& status = requests_.at(id);
    status.set_recovered(true);
    if (undecided(status)) {
      try {
        recovered_.push_back(start_attempt(status, "decided again: the hub restarted"));
      } catch (const std::logic_error& damaged) {
        return absl::DataLossError(store_->where() + ": " + damaged.what() + "; refusing to start");
      }
    } else {
      note_decided(id);
    }
    compact.emplace_back(id, status.SerializeAsString());
  }
  // One record per request, new attempts included: durable before any attempt is scheduled, so
  // no later start reuses one.
  return store_->rewrite(compact);
}

bool RequestBook::append(const v1::RequestStatus& status) {
  if (!store_) {
    return true;
  }
  if (journal_failed_ || !store_->put(status.request_id(), status.SerializeAsString())) {
    journal_failed_ = true;
    return false;
  }
  return true;
}

v1::SubmissionReply RequestBook::submit(const v1::ManifestSubmission& submission,
                                        std::vector<ToSchedule>& to_schedule,
                                        Declarations& declared) {
  v1::SubmissionReply reply;
  ManifestSet set;
  const std::string source = submission.source().empty() ? "<submitted>" : submission.source();
  load_manifest_text(submission.manifest(), source, set);
  std::map<std::string, ManifestSource> batch;  // accepted now: acknowledged once on disk
  for (const ManifestProblem& problem : set.problems) {
    reply.add_problems(problem.to_string());
  }
  for (LoadedManifest& loaded : set.manifests) {
    if (auto* profile = std::get_if<model::ClusterResourceProfile>(&loaded.manifest)) {
      declared.profiles.push_back(std::move(*profile));
      reply.set_profiles(reply.profiles() + 1);
      continue;
    }
    if (auto* quota = std::get_if<model::SchedulingQuota>(&loaded.manifest)) {
      declared.quotas.push_back({loaded.source, std::move(*quota)});
      reply.set_quotas(reply.quotas() + 1);
      continue;
    }
    auto& request = std::get<model::SchedulingRequest>(loaded.manifest);
    const std::string canonical =
        model::render_manifests({loaded.manifest}, model::OutputFormat::Json);
    const std::string& id = request.metadata.name;
    const ManifestProblem refusal{loaded.source, "SchedulingRequest", id, ""};
    if (const auto known = requests_.find(id); known != requests_.end()) {
      if (submission.apply() && known->second.manifest() == canonical) {
        *reply.add_accepted() = known->second;  // unchanged
        continue;
      }
      ManifestProblem problem = refusal;
      problem.message = "metadata.name: Duplicate value: \"" + id +
                        "\": a request of this name was already accepted (" +
                        v1::RequestStatus::Phase_Name(known->second.phase()) +
                        "); requests cannot be changed, submit a new name";
      reply.add_problems(problem.to_string());
      continue;
    }
    if (!make_room()) {
      ManifestProblem problem = refusal;
      problem.message = "not accepted: the hub holds " + std::to_string(requests_.size()) +
                        " requests awaiting decisions, the most it keeps; try again later";
      reply.add_problems(problem.to_string());
      continue;
    }
    v1::RequestStatus status;
    status.set_request_id(id);
    status.set_phase(v1::RequestStatus::PENDING);
    status.set_accepted_unix_ms(now_unix_ms());
    status.set_manifest(canonical);
    if (!append(status)) {
      ManifestProblem problem = refusal;
      problem.message = "not accepted: the hub's request journal " + store_name() +
                        " cannot be written, so the request would not survive a restart";
      reply.add_problems(problem.to_string());
      continue;
    }
    requests_[id] = status;
    accepted_at_[id] = sequence_++;
    *reply.add_accepted() = status;
    to_schedule.push_back({id, std::move(request.spec)});
    batch[id] = loaded.source;
  }
  if (!batch.empty() && !synced()) {
    take_back(batch, reply, to_schedule);
  }
  return reply;
}

bool RequestBook::synced() {
  if (!store_) {
    return true;
  }
  if (journal_failed_ || !store_->sync()) {
    journal_failed_ = true;
    return false;
  }
  return true;
}

void RequestBook::take_back(const std::map<std::string, ManifestSource>& batch,
                            v1::SubmissionReply& reply, std::vector<ToSchedule>& to_schedule) {
  for (const auto& [id, source] : batch) {
    requests_.erase(id);
    accepted_at_.erase(id);
    reply.add_problems(ManifestProblem{source, "SchedulingRequest", id,
                                       "not accepted: the hub's request journal " + store_name() +
                                           " cannot be synced to disk, so the request would not "
                                           "survive a crash"}
                           .to_string());
  }
  auto& accepted = *reply.mutable_accepted();
  accepted.erase(
      std::remove_if(accepted.begin(), accepted.end(),
                     [&](const auto& status) { return batch.count(status.request_id()) > 0; }),
      accepted.end());
  to_schedule.erase(
      std::remove_if(to_schedule.begin(), to_schedule.end(),
                     [&](const ToSchedule& work) { return batch.count(work.id) > 0; }),
      to_schedule.end());
}

bool RequestBook::decide(const v1::SchedulingDecision& decision) {
  const model::RequestAttempt attempt = model::parse_attempt_key(decision.request_id());
  const auto found = requests_.find(attempt.request);
  // An earlier attempt's decision is stale (what it placed is being released everywhere), and
  // a request given up by an earlier hub stays so.
  if (found == requests_.end() || found->second.attempt() != attempt.attempt ||
      found->second.phase() == v1::RequestStatus::LOST) {
    return false;
  }
  const std::string& id = attempt.request;
  v1::RequestStatus& status = found->second;
  status.set_phase(phase_of(decision.status()));
  if (decision.status() == v1::SchedulingDecision::QUEUED) {
    status.set_detail(decision.reasons_size() > 0 ? decision.reasons(0) : "waiting for quota");
    append(status);
    return true;
  }
  status.set_detail({});
  *status.mutable_decision() = decision;
  status.mutable_decision()->set_request_id(id);  // the request's, whichever attempt decided
  if (const auto early = ended_early_.find(id); early != ended_early_.end()) {
    // Ends of placements this decision does not hold stay kept: a later decision for a replica
    // placed again may (found by `unisched simulate`, seed 7756).
    auto& ends = early->second;
    for (auto end = ends.begin(); end != ends.end();) {
      if (placed_there(status, end->first, end->second)) {
        note_finished(status, end->second);
        end = ends.erase(end);
      } else {
        ++end;
      }
    }
    if (ends.empty() || decision.status() == v1::SchedulingDecision::UNSCHEDULABLE) {
      ended_early_.erase(early);
    }
    mark_if_finished(status);  // appends
  } else {
    append(status);
  }
  note_decided(id);
  return true;
}

std::vector<std::string> RequestBook::finish(const std::string& cluster,
                                             const std::vector<std::string>& placement_ids) {
  std::set<std::string> changed;
  for (const std::string& placement : placement_ids) {
    const auto found = requests_.find(model::request_of_placement(placement));
    if (found == requests_.end() || model::attempt_of_placement(placement) !=
                                        model::attempt_key(found->first, found->second.attempt())) {
      continue;  // unknown, or an earlier attempt's work (released)
    }
    if (!placed_there(found->second, cluster, placement)) {
      // The work may end before its decision, or the decision's update for a replica placed
      // again, gets here (a slow reply): kept for the decision (found by `unisched simulate`,
      // seeds 3 and 7756). A FINISHED request too: its replicas that were released, and so
      // reported ended, may be replaced by an update still on its way (seed 7756).
      const auto phase = found->second.phase();
      if (phase == v1::RequestStatus::PENDING || phase == v1::RequestStatus::QUEUED ||
          phase == v1::RequestStatus::PLACED || phase == v1::RequestStatus::PARTIALLY_PLACED ||
          phase == v1::RequestStatus::FINISHED) {
        ended_early_[found->first].emplace(cluster, placement);
      }
      continue;
    }
    if (note_finished(found->second, placement)) {
      changed.insert(found->first);
    }
  }
  for (const std::string& id : changed) {
    mark_if_finished(requests_.at(id));
  }
  return {changed.begin(), changed.end()};
}

bool RequestBook::placed_there(const v1::RequestStatus& status, const std::string& cluster,
                               const std::string& placement) {
  const auto& replicas = status.decision().replicas();
  return std::any_of(replicas.begin(), replicas.end(), [&](const auto& r) {
    return r.placement_id() == placement && r.cluster() == cluster;
  });
}

bool RequestBook::note_finished(v1::RequestStatus& status, const std::string& placement) {
  const auto& done = status.finished();
  if (std::find(done.begin(), done.end(), placement) != done.end()) {
    return false;
  }
  status.add_finished(placement);
  return true;
}

void RequestBook::mark_if_finished(v1::RequestStatus& status) {
  const std::set<std::string> done(status.finished().begin(), status.finished().end());
  const auto& replicas = status.decision().replicas();
  if (!replicas.empty() && std::all_of(replicas.begin(), replicas.end(), [&](const auto& r) {
        return done.count(r.placement_id()) > 0;
      })) {
    status.set_phase(v1::RequestStatus::FINISHED);
    ended_early_.erase(status.request_id());
  }
  append(status);
}

std::vector<v1::QuotaTakeRequest> RequestBook::quota_holdings() const {
  std::vector<v1::QuotaTakeRequest> out;
  for (const auto& [id, status] : requests_) {
    const v1::SchedulingDecision& decision = status.decision();
    if (decision.quota_placements_size() == 0) {
      continue;
    }
    const std::set<std::string> done(status.finished().begin(), status.finished().end());
    v1::QuotaTakeRequest holding;
    holding.set_work_id(id);
    holding.set_queue(decision.queue());
    for (const auto& placement : decision.quota_placements()) {
      if (done.count(placement.id()) == 0) {
        *holding.add_placements() = placement;
      }
    }
    if (holding.placements_size() > 0) {
      out.push_back(std::move(holding));
    }
  }
  return out;
}

const v1::RequestStatus* RequestBook::find(const std::string& id) const {
  const auto found = requests_.find(id);
  return found == requests_.end() ? nullptr : &found->second;
}

v1::RequestList RequestBook::list() const {
  v1::RequestList list;
  list.set_forgotten(forgotten_);
  list.set_refused_full(refused_full_);
  for (const auto& [id, status] : requests_) {
    *list.add_requests() = status;
  }
  return list;
}

}  // namespace unisched::runtime
