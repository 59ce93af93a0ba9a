// The simulated system's client side and what the observer reads at the end of a run
// (simulation/simulated_system.hpp).
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>
#include <caf/event_based_actor.hpp>

#include "messages/convert.hpp"
#include "simulation/simulated_system.hpp"

namespace unisched::simulation {

using namespace unisched::atoms;

void SimulatedSystem::submit(const std::vector<SimulatedRequest>& batch) {
  if (!centre_) {
    return;  // no hub to take it: the client would see its connection refused
  }
  std::vector<std::string> documents;
  for (const SimulatedRequest& request : batch) {
    documents.push_back(request.manifest);
    replicas_[request.name] = request.replicas;
    if (request.gang) {
      gangs_.insert(request.name);
    }
  }
  v1::ManifestSubmission submission;
  submission.set_source(absl::StrCat("batch-", ++submissions_, ".yaml"));
  submission.set_manifest(absl::StrJoin(documents, "---\n"));
  const runtime::HubActor hub = centre_->hub;
  system_->spawn([=](caf::event_based_actor* self) {
    self->request(hub, std::chrono::seconds(5), submission)
        .then(
            [=](v1::SubmissionReply& reply) {
              for (const v1::RequestStatus& status : reply.accepted()) {
                accepted_.insert(status.request_id());
              }
              if (!reply.problems().empty()) {
                observer_.violation(absl::StrCat("a valid submission drew problems: ",
                                                 absl::StrJoin(reply.problems(), "; ")));
              }
            },
            [](caf::error&) {});  // no answer: the client does not know; nothing was promised
  });
  coordinator_->run();
}

std::optional<v1::RequestList> SimulatedSystem::requests() {
  if (!centre_) {
    return std::nullopt;
  }
  return ask<v1::RequestList>(centre_->hub, requests_atom_v);
}

bool SimulatedSystem::views_caught_up() {
  if (network_->held() > 0) {
    return false;
  }
  for (size_t i = 0; i < agents_.size(); ++i) {
    const auto actor = cluster_actor(i);
    if (!actor || !agents_[i].actor) {
      return false;
    }
    const auto view = ask<v1::ClusterSnapshot>(*actor, view_atom_v);
    const auto truth = agent_truth(i);
    if (!view || !truth || view->agent_version() != truth->version() ||
        view->epoch() != truth->epoch()) {
      return false;
    }
    // Orders still on their way (sent again until the agent confirms them).
    const auto summary = ask<v1::ClusterSummary>(*actor, summary_atom_v);
    if (!summary || summary->reservations() > 0) {
      return false;
    }
  }
  return true;
}

size_t SimulatedSystem::finite_work_running() const {
  size_t count = 0;
  for (const AgentSlot& slot : agents_) {
    count += slot.adapter->finite_work_running();
  }
  return count;
}

void SimulatedSystem::final_checks() {
  for (size_t i = 0; i < agents_.size(); ++i) {
    const auto actor = cluster_actor(i);
    const auto view = actor ? ask<v1::ClusterSnapshot>(*actor, view_atom_v) : std::nullopt;
    const auto truth = agents_[i].actor ? agent_truth(i) : std::nullopt;
    if (!view || !truth) {
      observer_.violation(absl::StrCat(agents_[i].cluster_id, ": no ",
                                       view ? "agent snapshot" : "view", " at rest"));
      continue;
    }
    observer_.check_view(agents_[i].cluster_id, *view, *truth);
  }
  const auto list = requests();
  if (!list) {
    observer_.violation("the hub does not answer at rest");
    return;
  }
  observer_.check_requests(*list, accepted_, replicas_, gangs_);
  for (const v1::RequestStatus& status : list->requests()) {
    if (accepted_.count(status.request_id()) == 0) {
      continue;
    }
    switch (status.phase()) {
      case v1::RequestStatus::PLACED:
      case v1::RequestStatus::FINISHED:
        ++report_.placed;
        break;
      case v1::RequestStatus::UNSCHEDULABLE:
        ++report_.unschedulable;
        break;
      case v1::RequestStatus::LOST:
        ++report_.lost;
        break;
      case v1::RequestStatus::PARTIALLY_PLACED:
        ++report_.partially_placed;
        break;
      default:
        break;
    }
  }
}

void SimulatedSystem::watch_delivery(ActorKind kind, const caf::message& content) {
  if (kind != ActorKind::Cluster) {
    return;
  }
  if (content.match_elements<messages::AgentUpdate>()) {
    const auto& update = content.get_as<messages::AgentUpdate>(0).update;
    for (const model::SharedNodeChange& change : update->changes) {
      if (change.kind != model::NodeChangeKind::Remove) {
        observer_.check_reported(update->cluster_id + " update", *change.node);
      }
    }
    return;
  }
  const messages::AgentSnapshot* snapshot = nullptr;
  if (content.match_elements<messages::AgentSnapshot>()) {
    snapshot = &content.get_as<messages::AgentSnapshot>(0);
  } else if (content.match_elements<push_atom, messages::AgentSnapshot>()) {
    snapshot = &content.get_as<messages::AgentSnapshot>(1);
  }
  // A snapshot that does not decode is refused by the ClusterActor: nothing reported.
  if (snapshot == nullptr || !snapshot->problem.empty() || !snapshot->snapshot) {
    return;
  }
  for (const auto& node : snapshot->snapshot->nodes) {
    observer_.check_reported(snapshot->snapshot->cluster_id + " snapshot", *node);
  }
}

}  // namespace unisched::simulation
