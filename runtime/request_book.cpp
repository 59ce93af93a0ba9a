#include "runtime/request_book.hpp"

#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/util/delimited_message_util.h>

#include <chrono>

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
    default:
      return v1::RequestStatus::UNSCHEDULABLE;
  }
}

}  // namespace

RequestBook::RequestBook(std::string journal_path) : journal_path_(std::move(journal_path)) {}

std::vector<std::string> RequestBook::recover() {
  std::vector<std::string> problems;
  if (journal_path_.empty()) {
    return problems;
  }
  {
    std::ifstream in(journal_path_, std::ios::binary);
    if (in) {
      google::protobuf::io::IstreamInputStream stream(&in);
      bool clean_eof = false;
      for (;;) {
        v1::RequestStatus record;  // fresh each time: parsing merges into the message
        if (!google::protobuf::util::ParseDelimitedFromZeroCopyStream(&record, &stream,
                                                                      &clean_eof)) {
          break;
        }
        requests_[record.request_id()] = std::move(record);
      }
      if (!clean_eof) {
        problems.push_back(journal_path_ + ": the last record is torn or corrupt; " +
                           std::to_string(requests_.size()) + " requests read before it");
      }
    }
  }
  for (auto& [id, status] : requests_) {
    status.set_recovered(true);
    if (status.phase() == v1::RequestStatus::PENDING) {
      status.set_phase(v1::RequestStatus::LOST);
      status.set_detail(
          "the hub stopped before a decision was recorded; placements made before that stay on "
          "their clusters as " +
          id + "/<n>; submit it again under a new name to schedule it");
    }
  }
  // Rewrite the journal compactly: one record per request, with LOST made durable.
  journal_.open(journal_path_, std::ios::binary | std::ios::trunc);
  if (!journal_) {
    problems.push_back(journal_path_ + ": cannot write the journal");
    journal_failed_ = true;
    return problems;
  }
  for (const auto& [id, status] : requests_) {
    append(status);
  }
  return problems;
}

void RequestBook::append(const v1::RequestStatus& status) {
  if (journal_path_.empty() || journal_failed_) {
    return;
  }
  if (!journal_.is_open()) {
    journal_.open(journal_path_, std::ios::binary | std::ios::app);
  }
  if (!google::protobuf::util::SerializeDelimitedToOstream(status, &journal_) ||
      !journal_.flush()) {
    journal_failed_ = true;
  }
}

v1::SubmissionReply RequestBook::submit(const v1::ManifestSubmission& submission,
                                        std::vector<ToSchedule>& to_schedule,
                                        std::vector<model::ClusterResourceProfile>& profiles) {
  v1::SubmissionReply reply;
  ManifestSet set;
  const std::string source = submission.source().empty() ? "<submitted>" : submission.source();
  load_manifest_text(submission.manifest(), source, set);
  for (const ManifestProblem& problem : set.problems) {
    reply.add_problems(problem.to_string());
  }
  for (LoadedManifest& loaded : set.manifests) {
    if (auto* profile = std::get_if<model::ClusterResourceProfile>(&loaded.manifest)) {
      profiles.push_back(std::move(*profile));
      reply.set_profiles(reply.profiles() + 1);
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
    v1::RequestStatus& status = requests_[id];
    status.set_request_id(id);
    status.set_phase(v1::RequestStatus::PENDING);
    status.set_accepted_unix_ms(now_unix_ms());
    status.set_manifest(canonical);
    append(status);
    *reply.add_accepted() = status;
    to_schedule.push_back({id, std::move(request.spec)});
  }
  return reply;
}

bool RequestBook::decide(const v1::SchedulingDecision& decision) {
  const auto found = requests_.find(decision.request_id());
  if (found == requests_.end()) {
    return false;
  }
  v1::RequestStatus& status = found->second;
  status.set_phase(phase_of(decision.status()));
  status.set_detail({});
  *status.mutable_decision() = decision;
  append(status);
  return true;
}

const v1::RequestStatus* RequestBook::find(const std::string& id) const {
  const auto found = requests_.find(id);
  return found == requests_.end() ? nullptr : &found->second;
}

v1::RequestList RequestBook::list() const {
  v1::RequestList list;
  for (const auto& [id, status] : requests_) {
    *list.add_requests() = status;
  }
  return list;
}

}  // namespace unisched::runtime
