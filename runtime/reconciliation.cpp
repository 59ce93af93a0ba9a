#include "runtime/reconciliation.hpp"

#include <algorithm>

#include "model/request_attempt.hpp"
#include "runtime/request_book.hpp"

namespace unisched::runtime {
namespace {

bool placed(const v1::RequestStatus& status) {
  return status.phase() == v1::RequestStatus::PLACED ||
         status.phase() == v1::RequestStatus::PARTIALLY_PLACED;
}

}  // namespace

void Reconciliation::decided(const v1::RequestStatus& status, uint64_t scheduler) {
  forget(status.request_id());  // a live scheduler follows it again
  if (placed(status)) {
    deciders_[status.request_id()] = scheduler;
  }
}

std::vector<std::string> Reconciliation::scheduler_stopped(uint64_t scheduler) {
  std::vector<std::string> ids;
  for (auto it = deciders_.begin(); it != deciders_.end();) {
    if (it->second == scheduler) {
      ids.push_back(it->first);
      it = deciders_.erase(it);
    } else {
      ++it;
    }
  }
  return ids;
}

void Reconciliation::follow(const v1::RequestStatus& status) {
  if (!placed(status)) {
    return;
  }
  const std::set<std::string> ended(status.finished().begin(), status.finished().end());
  for (const v1::SchedulingDecision::Replica& replica : status.decision().replicas()) {
    if (ended.count(replica.placement_id()) > 0) {
      continue;
    }
    placements_[replica.placement_id()] = {status.request_id(), replica.cluster(), 0};
    requests_[status.request_id()].insert(replica.placement_id());
  }
}

void Reconciliation::forget(const std::string& request_id) {
  deciders_.erase(request_id);
  const auto followed = requests_.find(request_id);
  if (followed == requests_.end()) {
    return;
  }
  for (const std::string& placement : followed->second) {
    placements_.erase(placement);
  }
  requests_.erase(followed);
}

void Reconciliation::drop_placement(const std::string& placement_id) {
  const auto found = placements_.find(placement_id);
  if (found == placements_.end()) {
    return;
  }
  const auto request = requests_.find(found->second.request_id);
  if (request != requests_.end()) {
    request->second.erase(placement_id);
    if (request->second.empty()) {
      requests_.erase(request);
    }
  }
  placements_.erase(found);
}

std::map<std::string, std::vector<std::string>> Reconciliation::questions() const {
  std::map<std::string, std::vector<std::string>> by_cluster;
  for (const auto& [placement, followed] : placements_) {
    by_cluster[followed.cluster].push_back(placement);
  }
  return by_cluster;
}

Reconciliation::Outcome Reconciliation::on_report(const std::string& cluster,
                                                  const std::vector<std::string>& asked,
                                                  const v1::PlacementReport& report) {
  Outcome outcome;
  if (!report.synced()) {
    return outcome;  // nothing it says means anything yet
  }
  const size_t answered = std::min<size_t>(asked.size(), report.states_size());
  for (size_t i = 0; i < answered; ++i) {
    const auto found = placements_.find(asked[i]);
    if (found == placements_.end() || found->second.cluster != cluster) {
      continue;  // given up or forgotten meanwhile
    }
    Followed& followed = found->second;
    std::string reason;
    switch (report.states(static_cast<int>(i))) {
      case v1::PlacementReport::ENDED:
        outcome.ended.push_back(asked[i]);
        drop_placement(asked[i]);
        continue;
      case v1::PlacementReport::RUNNING:
        drop_placement(asked[i]);  // the cluster follows it from here
        continue;
      case v1::PlacementReport::PENDING:
        followed.unknown = 0;  // its ClusterActor still sends the order
        continue;
      case v1::PlacementReport::REFUSED:
        reason = "cluster " + cluster + " refused its placement " + asked[i];
        break;
      default:
        if (++followed.unknown < kUnknownLimit) {
          continue;
        }
        reason = "cluster " + cluster + " never received the order for its placement " + asked[i];
        break;
    }
    const std::string request_id = followed.request_id;
    outcome.give_up.push_back(
        {request_id, reason + ", and no scheduler follows the request any more to place it "
                              "again (its scheduler stopped, or the hub restarted)"});
    forget(request_id);
  }
  return outcome;
}

std::vector<std::string> find_strays(const std::string& cluster,
                                     const std::vector<std::string>& held, const RequestBook& book,
                                     const std::function<bool(const std::string&)>& deciding) {
  std::vector<std::string> strays;
  for (const std::string& id : held) {
    const std::string request = model::request_of_placement(id);
    const v1::RequestStatus* status = book.find(request);
    if (status == nullptr) {
      continue;
    }
    if (model::attempt_of_placement(id) != book.attempt_of(request)) {
      strays.push_back(id);  // an earlier attempt's: the request is decided again without it
      continue;
    }
    if (deciding(request) || status->phase() == v1::RequestStatus::PENDING ||
        status->phase() == v1::RequestStatus::QUEUED) {
      continue;
    }
    const auto& replicas = status->decision().replicas();
    const bool decided_here =
        std::any_of(replicas.begin(), replicas.end(), [&](const auto& replica) {
          return replica.placement_id() == id && replica.cluster() == cluster;
        });
    if (!placed(*status) || !decided_here) {
      strays.push_back(id);
    }
  }
  return strays;
}

}  // namespace unisched::runtime
