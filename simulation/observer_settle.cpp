// The observer's checks once a run has settled (simulation/observer.hpp).
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include "model/request_attempt.hpp"
#include "simulation/observer.hpp"

namespace unisched::simulation {
namespace {

bool in_decision(const v1::RequestStatus& status, const std::string& placement_id) {
  for (const auto& replica : status.decision().replicas()) {
    if (replica.placement_id() == placement_id) {
      return true;
    }
  }
  return false;
}

}  // namespace

void Observer::check_requests(const v1::RequestList& list, const std::set<std::string>& accepted,
                              const std::map<std::string, int>& replicas,
                              const std::set<std::string>& gangs) {
  std::map<std::string, const v1::RequestStatus*> book;
  for (const v1::RequestStatus& status : list.requests()) {
    book[status.request_id()] = &status;
  }
  for (const std::string& id : accepted) {
    const auto found = book.find(id);
    if (found == book.end()) {
      violation(absl::StrCat("request ", id, " was accepted and is not in the book"));
      continue;
    }
    const v1::RequestStatus& status = *found->second;
    const std::string phase = v1::RequestStatus::Phase_Name(status.phase());
    switch (status.phase()) {
      case v1::RequestStatus::PLACED:
      case v1::RequestStatus::FINISHED:
        break;
      case v1::RequestStatus::UNSCHEDULABLE:
        if (status.decision().reasons().empty() && status.detail().empty()) {
          violation(absl::StrCat("request ", id, " unschedulable without a reason: ",
                                 status.decision().ShortDebugString()));
        }
        break;
      case v1::RequestStatus::LOST:
        // A crash no longer loses a request: it is decided again under a new attempt.
        violation(absl::StrCat("request ", id, " was accepted and ended LOST: ", status.detail()));
        break;
      case v1::RequestStatus::PARTIALLY_PLACED:
        if (gangs.count(id) > 0) {
          violation(absl::StrCat("gang ", id, " partially placed at rest"));
        }
        break;
      default:
        violation(absl::StrCat("request ", id, " still ", phase, " at rest: never decided"));
    }
    if (status.phase() == v1::RequestStatus::PLACED) {
      check_placed_work(status);
    }
    if (status.phase() == v1::RequestStatus::PLACED && gangs.count(id) > 0 &&
        status.decision().replicas_size() != replicas.at(id)) {
      violation(absl::StrCat("gang ", id, " placed with ", status.decision().replicas_size(),
                             " of ", replicas.at(id), " replicas"));
    }
  }
  for (const auto& [placement_id, running] : running_) {
    const auto found = book.find(model::request_of_placement(placement_id));
    if (found == book.end()) {
      violation(absl::StrCat(running.cluster, ": placement ", placement_id,
                             " runs for no request the hub knows"));
      continue;
    }
    const v1::RequestStatus& status = *found->second;
    const bool placed = status.phase() == v1::RequestStatus::PLACED ||
                        status.phase() == v1::RequestStatus::PARTIALLY_PLACED;
    if (!placed || !in_decision(status, placement_id)) {
      violation(absl::StrCat(
          running.cluster, ": placement ", placement_id, " outlives its request (",
          v1::RequestStatus::Phase_Name(status.phase()), placed ? ", not in its decision" : "",
          "): ", status.decision().ShortDebugString(),
          " finished: ", absl::StrJoin(status.finished(), ",")));
    }
  }
}

/// A placed request's replicas all ran, and it is not left PLACED once all its work ended.
void Observer::check_placed_work(const v1::RequestStatus& status) {
  size_t ended = 0;
  for (const auto& replica : status.decision().replicas()) {
    if (ever_applied_.count(replica.placement_id()) == 0) {
      violation(absl::StrCat("request ", status.request_id(), " is PLACED but its replica ",
                             replica.placement_id(), " never ran on ", replica.cluster()));
    }
    ended += finished_.count(replica.placement_id());
  }
  if (status.decision().replicas_size() > 0 &&
      ended == static_cast<size_t>(status.decision().replicas_size())) {
    std::string replicas;
    for (const auto& replica : status.decision().replicas()) {
      absl::StrAppend(&replicas, replicas.empty() ? "" : ", ", replica.placement_id(), " on ",
                      replica.cluster());
    }
    violation(absl::StrCat("request ", status.request_id(),
                           " is still PLACED though all its work (", replicas,
                           ") ended; the hub heard of ", absl::StrJoin(status.finished(), ", ")));
  }
}

void Observer::check_view(const std::string& cluster, const v1::ClusterSnapshot& view,
                          const v1::ClusterSnapshot& truth) {
  ++checks_;
  if (view.agent_version() != truth.version() || view.epoch() != truth.epoch()) {
    violation(absl::StrCat(cluster, ": the view stands at epoch ", view.epoch(), " version ",
                           view.agent_version(), ", the agent at epoch ", truth.epoch(),
                           " version ", truth.version()));
    return;
  }
  std::map<std::string, const v1::NodeState*> agent_nodes;
  for (const v1::NodeState& node : truth.nodes()) {
    agent_nodes[node.name()] = &node;
  }
  if (static_cast<size_t>(view.nodes_size()) != agent_nodes.size()) {
    violation(absl::StrCat(cluster, ": the view has ", view.nodes_size(), " nodes, the agent ",
                           agent_nodes.size()));
  }
  for (const v1::NodeState& node : view.nodes()) {
    const auto found = agent_nodes.find(node.name());
    if (found == agent_nodes.end()) {
      violation(absl::StrCat(cluster, ": node ", node.name(), " is in the view only"));
      continue;
    }
    const v1::NodeState& real = *found->second;
    bool same = node.allocated_cpu_milli() == real.allocated_cpu_milli() &&
                node.allocated_memory_bytes() == real.allocated_memory_bytes() &&
                node.pod_count() == real.pod_count() && node.schedulable() == real.schedulable() &&
                node.accelerators_size() == real.accelerators_size() &&
                std::equal(node.host_ports_in_use().begin(), node.host_ports_in_use().end(),
                           real.host_ports_in_use().begin(), real.host_ports_in_use().end());
    for (int i = 0; same && i < node.accelerators_size(); ++i) {
      same = node.accelerators(i).allocated_milli() == real.accelerators(i).allocated_milli();
    }
    if (!same) {
      violation(absl::StrCat(cluster, ": node ", node.name(),
                             " differs between the view and the agent: view ",
                             node.ShortDebugString(), " agent ", real.ShortDebugString()));
    }
  }
}

}  // namespace unisched::simulation
