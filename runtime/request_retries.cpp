// RequestBook's attempts: a request whose decision was lost with a scheduler or a hub, or one
// of whose placements will never run, is decided afresh under its next attempt.
#include <stdexcept>
#include <utility>
#include <variant>

#include "model/manifest.hpp"
#include "model/request_attempt.hpp"
#include "runtime/request_book.hpp"

namespace unisched::runtime {
namespace {

/// The spec the request was accepted with, from its canonical manifest.
model::SchedulingRequestSpec spec_of(const v1::RequestStatus& status) {
  const model::DecodedManifest decoded =
      model::decode_manifest(model::DocumentText{status.manifest(), 1});
  if (!decoded.manifest || !std::holds_alternative<model::SchedulingRequest>(*decoded.manifest)) {
    // The hub wrote it from a request it had decoded: a journal saying otherwise is damaged
    // past what its checksums see.
    throw std::logic_error("request " + status.request_id() +
                           ": its recorded manifest no longer decodes as a request");
  }
  return std::get<model::SchedulingRequest>(*decoded.manifest).spec;
}

}  // namespace

bool RequestBook::undecided(const v1::RequestStatus& status) {
  switch (status.phase()) {
    case v1::RequestStatus::PENDING:
    case v1::RequestStatus::QUEUED:
      return true;
    case v1::RequestStatus::PLACED:
    case v1::RequestStatus::PARTIALLY_PLACED:
      return status.decision().replacing() > 0;
    default:
      return false;
  }
}

RequestBook::Retry RequestBook::start_attempt(v1::RequestStatus& status,
                                              const std::string& reason) {
  Retry retry;
  retry.replaced = model::attempt_key(status.request_id(), status.attempt());
  status.set_attempt(status.attempt() + 1);
  status.set_phase(v1::RequestStatus::PENDING);
  status.set_detail(reason + " (attempt " + std::to_string(status.attempt()) + ")");
  status.clear_decision();
  status.clear_finished();
  ended_early_.erase(status.request_id());
  retry.work = {model::attempt_key(status.request_id(), status.attempt()), spec_of(status)};
  return retry;
}

std::vector<RequestBook::Retry> RequestBook::retry(const std::vector<std::string>& ids,
                                                   const std::string& reason) {
  std::vector<Retry> out;
  for (const std::string& id : ids) {
    const auto found = requests_.find(id);
    if (found == requests_.end()) {
      continue;
    }
    v1::RequestStatus& status = found->second;
    switch (status.phase()) {
      case v1::RequestStatus::PENDING:
      case v1::RequestStatus::QUEUED:
      case v1::RequestStatus::PLACED:
      case v1::RequestStatus::PARTIALLY_PLACED:
        break;
      default:
        continue;
    }
    out.push_back(start_attempt(status, reason));
    append(status);
    if (const auto order = accepted_at_.find(id); order != accepted_at_.end()) {
      decided_.erase({order->second, id});  // undecided again: never forgotten to make room
    }
  }
  // Synced (once for them all) before they are scheduled: a later start must not reuse an
  // attempt. A journal that failed keeps nothing anyway (the hub says so); they are decided
  // again all the same.
  if (!out.empty()) {
    synced();
  }
  return out;
}

std::string RequestBook::attempt_of(const std::string& id) const {
  const auto found = requests_.find(id);
  return found == requests_.end() ? std::string() : model::attempt_key(id, found->second.attempt());
}

}  // namespace unisched::runtime
