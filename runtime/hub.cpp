#include "runtime/hub.hpp"

#include <spdlog/spdlog.h>
#include <caf/actor_cast.hpp>
#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <set>

#include "actors/countdown.hpp"
#include "actors/stray_errors.hpp"
#include "messages/caf_types.hpp"
#include "messages/errors.hpp"
#include "model/names.hpp"
#include "model/printable.hpp"
#include "runtime/hub_state.hpp"
#include "runtime/manifest_loader.hpp"
#include "runtime/quota_book.hpp"
#include "runtime/reconciliation.hpp"
#include "runtime/request_book.hpp"
#include "runtime/tokens.hpp"

namespace unisched::runtime {
namespace {

using namespace unisched::atoms;

using Self = HubSelf;

v1::ClusterRegistration declared_registration(const model::ClusterResourceProfile& profile) {
  v1::ClusterRegistration registration;
  registration.mutable_identity()->set_cluster_id(profile.spec.cluster_id);
  registration.set_region(profile.spec.topology.region);
  registration.set_zone(profile.spec.topology.zone);
  registration.set_machine_type(
      std::string(model::spelling(model::kMachineTypes, profile.spec.machine_type)));
  return registration;
}

std::string refuse_cluster(const HubState& state, const v1::ClusterIdentity& who) {
  if (state.tokens.empty()) {
    return {};
  }
  return token_refusal(state.tokens, "cluster", who.cluster_id(), who.token());
}

/// A shard holds the authoritative view of every cluster placed on it, so a hub that checks
/// anyone's credentials admits only shards with credentials of their own.
std::string refuse_shard(const HubState& state, const v1::ShardRegistration& shard) {
  if (state.shard_tokens.empty()) {
    return state.tokens.empty() ? std::string()
                                : "this hub checks cluster tokens and admits shards only with "
                                  "tokens of their own (serve --shard-tokens)";
  }
  return token_refusal(state.shard_tokens, "shard", shard.shard_id(), shard.token());
}

}  // namespace

namespace {

/// Answers whoever waits for the request's decision, once it is one.
void answer_waiting(Self self, const std::string& id) {
  auto& state = self->state;
  const v1::RequestStatus* status = state.requests->book().find(id);
  if (status == nullptr || status->phase() == v1::RequestStatus::QUEUED) {
    return;  // not decided yet: whoever waits for the decision waits on
  }
  auto [first, last] = state.waiting.equal_range(id);
  for (auto it = first; it != last; ++it) {
    it->second.deliver(*status);
  }
  state.waiting.erase(first, last);
}

/// Has every cluster release what these given-up attempts placed, and the ledger the quota
/// they held.
void release_given_up(Self self, HubCommands::GivenUp given_up) {
  if (self->state.quota) {
    v1::QuotaRelease quota;
    quota.mutable_attempts()->Add(given_up.ids.begin(), given_up.ids.end());
    self->send(self->state.quota, std::move(quota));
  }
  v1::GivenUpRequests message;
  message.mutable_request_ids()->Add(std::make_move_iterator(given_up.ids.begin()),
                                     std::make_move_iterator(given_up.ids.end()));
  message.set_reason(std::move(given_up.reason));
  self->send(self->state.supervisor, std::move(message));
}

const actors::SchedulerActor* scheduler_of(Self self, uint64_t id) {
  for (const actors::SchedulerActor& scheduler : self->state.schedulers) {
    if (scheduler.id() == id) {
      return &scheduler;
    }
  }
  return nullptr;
}

/// Asks the scheduler for the request's decision and hands its answer to the request rules.
void submit(Self self, uint64_t scheduler_id, RequestBook::ToSchedule work) {
  const actors::SchedulerActor* scheduler = scheduler_of(self, scheduler_id);
  if (scheduler == nullptr) {
    carry_out(self, self->state.requests->not_decided(scheduler_id, work.id, "it stopped"));
    return;
  }
  const std::string id = work.id;
  self->request(*scheduler, caf::infinite, submit_atom_v, std::move(work.id), std::move(work.spec))
      .then(
          [=](v1::SchedulingDecision& decision) {
            carry_out(self, self->state.requests->decided(scheduler_id, decision));
          },
          [=](caf::error& error) {
            carry_out(self, self->state.requests->not_decided(scheduler_id, id, to_string(error)));
          });
}

bool from_a_scheduler(Self self) {
  const caf::strong_actor_ptr& sender = self->current_sender();
  return std::any_of(self->state.schedulers.begin(), self->state.schedulers.end(),
                     [&](const actors::SchedulerActor& scheduler) {
                       return sender == caf::actor_cast<caf::strong_actor_ptr>(scheduler);
                     });
}

}  // namespace

void carry_out(Self self, HubCommands commands) {
  if (commands.journal_failed) {
    spdlog::error("hub: the request journal cannot be written; decisions survive no restart");
  }
  for (const std::string& id : commands.answers) {
    answer_waiting(self, id);
  }
  if (commands.decided_again > 0) {
    spdlog::warn("hub: {} requests are decided again under a new attempt", commands.decided_again);
  }
  for (HubCommands::GivenUp& given_up : commands.given_up) {
    spdlog::info("hub: {} attempts given up ({}); what they placed is released",
                 given_up.ids.size(), given_up.reason);
    release_given_up(self, std::move(given_up));
  }
  for (auto& [scheduler, work] : commands.submissions) {
    submit(self, scheduler, std::move(work));
  }
}

void record_finished(Self self, const v1::FinishedPlacements& finished) {
  auto& state = self->state;
  state.requests->finished(finished.cluster_id(),
                           {finished.placement_ids().begin(), finished.placement_ids().end()});
  if (state.quota) {
    self->send(state.quota, finished);
  }
}

namespace {

/// A scheduler stopped: it takes no more work; the request rules say what becomes of its work.
void on_scheduler_down(Self self, const caf::down_msg& down) {
  auto& state = self->state;
  spdlog::warn("hub: a scheduler stopped: {}", to_string(down.reason));
  state.schedulers.erase(std::remove_if(state.schedulers.begin(), state.schedulers.end(),
                                        [&](const actors::SchedulerActor& scheduler) {
                                          return scheduler.address() == down.source;
                                        }),
                         state.schedulers.end());
  carry_out(self, state.requests->scheduler_stopped(down.source.id()));
}

/// Collects, for each of `ids`, the cluster's view, summary and home into one ClusterViews.
/// With `from_agents`, the views are the agents' own snapshots instead of the ClusterActors'.
caf::result<v1::ClusterViews> collect_views(Self self, const std::vector<std::string>& ids,
                                            bool from_agents) {
  auto promise = std::make_shared<caf::typed_response_promise<v1::ClusterViews>>(
      self->make_response_promise<v1::ClusterViews>());
  auto views = std::make_shared<v1::ClusterViews>();
  const actors::Countdown answered(ids.size() * 3, [=] { promise->deliver(*views); });
  const auto timeout = self->state.timeouts.cluster_views;
  for (const std::string& id : ids) {
    self->request(self->state.supervisor, timeout, summary_atom_v, id)
        .then(
            [=](v1::ClusterSummary& summary) mutable {
              *views->add_summaries() = std::move(summary);
              answered();
            },
            [=](caf::error&) mutable { answered(); });
    self->request(self->state.supervisor, timeout, shard_atom_v, id)
        .then(
            [=](v1::ClusterHome& home) mutable {
              *views->add_homes() = std::move(home);
              answered();
            },
            [=](caf::error&) mutable { answered(); });
    if (from_agents) {
      self->request(self->state.supervisor, timeout, view_atom_v, id)
          .then(
              [=](v1::ClusterSnapshot& snapshot) mutable {
                *views->add_clusters() = std::move(snapshot);
                answered();
              },
              [=](caf::error&) mutable { answered(); });
      continue;
    }
    self->request(self->state.supervisor, timeout, clusters_atom_v, id)
        .then(
            [=](actors::ClusterActor& cluster_actor) mutable {
              self->request(cluster_actor, timeout, view_atom_v)
                  .then(
                      [=](v1::ClusterSnapshot& snapshot) mutable {
                        *views->add_clusters() = std::move(snapshot);
                        answered();
                      },
                      [=](caf::error&) mutable { answered(); });
            },
            [=](caf::error&) mutable { answered(); });
  }
  return *promise;
}

/// An agent registers its cluster: checked here (id, token), then started by the supervisor;
/// the schedulers learn of it once it has a ClusterActor.
caf::result<actors::ClusterActor> on_register(Self self,
                                              const v1::ClusterRegistration& registration,
                                              const actors::AgentActor& agent) {
  const std::string& id = registration.identity().cluster_id();
  if (id.empty() || !agent) {
    return messages::make_error(messages::Error::InvalidArgument,
                                "identity.cluster_id: Required value");
  }
  if (const std::string reason = model::check_cluster_id(id); !reason.empty()) {
    const std::string why =
        "identity.cluster_id: Invalid value: " + model::quoted_brief(id) + ": " + reason;
    spdlog::warn("hub: registration refused: {}", why);
    return messages::make_error(messages::Error::InvalidArgument, why);
  }
  if (const std::string why = refuse_cluster(self->state, registration.identity()); !why.empty()) {
    spdlog::warn("hub: registration refused: {}", why);
    return messages::make_error(messages::Error::Unauthenticated, why);
  }
  auto promise = self->make_response_promise<actors::ClusterActor>();
  self->request(self->state.supervisor, self->state.timeouts.registration, register_atom_v, id,
                agent)
      .then(
          [=](actors::ClusterActor& cluster_actor) mutable {
            v1::ClusterRegistration known = registration;
            known.mutable_identity()->clear_token();
            self->state.clusters[id] = known;
            for (const actors::SchedulerActor& scheduler : self->state.schedulers) {
              self->send(scheduler, join_atom_v, known);
            }
            spdlog::info("hub: cluster {} joined", id);
            promise.deliver(cluster_actor);
          },
          [=](caf::error& error) mutable {
            spdlog::warn("hub: cluster {} refused: {}", id, to_string(error));
            promise.deliver(std::move(error));
          });
  return promise;
}

/// Every cluster's summary, and the applied profiles whose agent has not registered yet: fans
/// out to the supervisor and answers once all replied (or failed).
caf::result<v1::ClusterList> list_clusters(Self self) {
  auto promise = std::make_shared<caf::typed_response_promise<v1::ClusterList>>(
      self->make_response_promise<v1::ClusterList>());
  auto list = std::make_shared<v1::ClusterList>();
  for (const auto& [id, declared] : self->state.declared) {
    if (self->state.clusters.count(id) == 0) {
      list->add_clusters()->set_cluster_id(id);  // no agent yet: nothing known
    }
  }
  const actors::Countdown one_more(self->state.clusters.size(), [=] { promise->deliver(*list); });
  for (const auto& [id, registration] : self->state.clusters) {
    const bool view_only = registration.view_only();
    self->request(self->state.supervisor, self->state.timeouts.cluster_summary, summary_atom_v, id)
        .then(
            [=](v1::ClusterSummary& summary) {
              summary.set_view_only(view_only);
              *list->add_clusters() = std::move(summary);
              one_more();
            },
            [=](caf::error&) { one_more(); });
  }
  return *promise;
}

/// Quotas applied: recorded durably, then put in force at the ledger; refused (with the reason)
/// when there is no ledger or the record cannot be written.
void define_quotas(Self self, const std::vector<RequestBook::Declarations::Quota>& quotas,
                   v1::SubmissionReply& reply) {
  for (const auto& [source, quota] : quotas) {
    const std::string manifest = model::render_manifests({quota}, model::OutputFormat::Json);
    const v1::QuotaDefinition definition = quota_definition(quota, manifest);
    std::string refusal;
    if (!self->state.quota) {
      refusal = "this hub has no quota ledger; not recorded";
    } else if (!self->state.quotas->record(definition)) {
      refusal = "not recorded: the hub's quota journal cannot be written";
    }
    if (!refusal.empty()) {
      reply.set_quotas(reply.quotas() - 1);
      reply.add_problems(
          ManifestProblem{source, "SchedulingQuota", quota.metadata.name, refusal}.to_string());
      continue;
    }
    self->request(self->state.quota, self->state.timeouts.quota_definition, definition)
        .then([](v1::QuotaStatus&) {},
              [name = quota.metadata.name](caf::error& error) {
                spdlog::error("hub: quota {} not put in force: {}", name, to_string(error));
              });
  }
}

/// Manifests from a client: profiles are recorded as declared; valid requests are accepted and
/// scheduled.
v1::SubmissionReply on_submission(Self self, const v1::ManifestSubmission& submission) {
  std::vector<RequestBook::ToSchedule> work;
  RequestBook::Declarations declared;
  v1::SubmissionReply reply = self->state.requests->book().submit(submission, work, declared);
  for (const auto& profile : declared.profiles) {
    const v1::ClusterRegistration registration = declared_registration(profile);
    if (!self->state.profiles->record(registration)) {
      reply.set_profiles(reply.profiles() - 1);
      reply.add_problems("ClusterResourceProfile/" + model::printable(profile.metadata.name) +
                         ": not recorded: the hub's profile journal cannot be written");
      continue;
    }
    self->state.declared[profile.spec.cluster_id] = registration;
  }
  define_quotas(self, declared.quotas, reply);
  spdlog::info("hub: {}: {} requests accepted, {} profiles, {} quotas, {} problems",
               submission.source(), work.size(), declared.profiles.size(), reply.quotas(),
               reply.problems_size());
  carry_out(self, self->state.requests->schedule(std::move(work)));
  return reply;
}

caf::result<v1::ShardRegistration> on_shard(Self self, const v1::ShardRegistration& shard,
                                            actors::ShardActor actor) {
  if (const std::string why = refuse_shard(self->state, shard); !why.empty()) {
    spdlog::warn("hub: shard refused: {}", why);
    return messages::make_error(messages::Error::Unauthenticated, why);
  }
  v1::ShardRegistration admitted = shard;
  admitted.clear_token();
  return self->delegate(self->state.supervisor, shard_atom_v, std::move(admitted),
                        std::move(actor));
}

/// The views of one cluster, or of every cluster when `id` is empty.
caf::result<v1::ClusterViews> on_nodes(Self self, const std::string& id, bool from_agents) {
  std::vector<std::string> ids;
  if (id.empty()) {
    for (const auto& [known, registration] : self->state.clusters) {
      ids.push_back(known);
    }
  } else if (self->state.clusters.count(id) > 0) {
    ids.push_back(id);
  } else {
    return messages::make_error(messages::Error::NotFound, "no cluster " + model::quoted_brief(id));
  }
  return collect_views(self, ids, from_agents);
}

/// A scheduler placed a refused replica again: the request's decision as it now stands.
void on_changed_decision(Self self, const v1::SchedulingDecision& changed) {
  if (!from_a_scheduler(self)) {
    spdlog::warn("hub: a decision of request {} not from a scheduler; dropped",
                 model::printable(changed.request_id()));
    return;
  }
  carry_out(self, self->state.requests->changed(self->current_sender()->id(), changed));
}

void on_reconcile_message(Self self) {
  if (self->current_sender() == caf::actor_cast<caf::strong_actor_ptr>(self)) {  // its timer
    on_reconcile_tick(self);
  } else {
    // Each tick sets the next: a peer's ticks would multiply the questions to clusters.
    spdlog::warn("hub: a reconciliation tick not from the hub itself; dropped");
  }
}

caf::result<v1::QuotaList> on_quotas(Self self) {
  if (!self->state.quota) {
    return v1::QuotaList{};
  }
  // Asked and answered here, not delegated: the ledger's address stays in this process.
  auto promise = self->make_response_promise<v1::QuotaList>();
  self->request(self->state.quota, self->state.timeouts.quota_list, quotas_atom_v)
      .then([=](v1::QuotaList& list) mutable { promise.deliver(std::move(list)); },
            [=](caf::error& error) mutable { promise.deliver(std::move(error)); });
  return promise;
}

/// Believed only from the supervisor, which checked it came from the cluster's ClusterActor: a
/// finish frees quota.
void on_finished(Self self, const v1::FinishedPlacements& finished) {
  if (self->current_sender() != caf::actor_cast<caf::strong_actor_ptr>(self->state.supervisor)) {
    spdlog::warn("hub: finished placements for cluster {} not from the supervisor; dropped",
                 model::printable(finished.cluster_id()));
    return;
  }
  record_finished(self, finished);
}

/// A request's status now, or with `wait` once it is decided.
caf::result<v1::RequestStatus> on_request_status(Self self, const std::string& id, bool wait) {
  const v1::RequestStatus* status = self->state.requests->book().find(id);
  if (status == nullptr) {
    return messages::make_error(messages::Error::NotFound, "no request " + model::quoted_brief(id));
  }
  if (!wait || (status->phase() != v1::RequestStatus::PENDING &&
                status->phase() != v1::RequestStatus::QUEUED)) {
    return *status;
  }
  auto promise = self->make_response_promise<v1::RequestStatus>();
  self->state.waiting.emplace(id, promise);
  return promise;
}

/// The hub's state from its settings and its journals, and what a restart left to follow up.
void start_hub(Self self, actors::SupervisorActor supervisor,
               std::vector<actors::SchedulerActor> schedulers, HubSettings settings) {
  auto& state = self->state;
  state.supervisor = std::move(supervisor);
  state.schedulers = std::move(schedulers);
  state.tokens = std::move(settings.tokens);
  state.shard_tokens = std::move(settings.shard_tokens);
  std::vector<uint64_t> scheduler_ids;
  for (const actors::SchedulerActor& scheduler : state.schedulers) {
    scheduler_ids.push_back(scheduler.id());
  }
  state.requests = std::make_unique<HubRequests>(
      settings.book ? settings.book : std::make_shared<RequestBook>(), std::move(scheduler_ids));
  state.quota = std::move(settings.quota);
  state.quotas = settings.quotas ? settings.quotas : std::make_shared<QuotaBook>();
  state.profiles = settings.profiles ? settings.profiles : std::make_shared<ProfileBook>();
  state.collect_interval = settings.collect_interval;
  state.timeouts = settings.timeouts;
  for (v1::ClusterRegistration& declared : state.profiles->values()) {
    const std::string id = declared.identity().cluster_id();
    state.declared[id] = std::move(declared);
  }
  actors::log_stray_errors(self, "hub");
  std::set<std::string> declared;
  for (const auto& [id, registration] : state.declared) {
    declared.insert(id);
  }
  carry_out(self, state.requests->start(declared, self->clock().now() + state.timeouts.recovery));
  start_reconciling(self);
  for (const actors::SchedulerActor& scheduler : state.schedulers) {
    self->monitor(scheduler);
  }
  self->set_down_handler([=](caf::down_msg& down) { on_scheduler_down(self, down); });
}

runtime::HubActor::behavior_type hub(Self self, actors::SupervisorActor supervisor,
                                     std::vector<actors::SchedulerActor> schedulers,
                                     HubSettings settings) {
  start_hub(self, std::move(supervisor), std::move(schedulers), std::move(settings));
  return {
      [=](register_atom, const v1::ClusterRegistration& registration, actors::AgentActor agent) {
        return on_register(self, registration, agent);
      },
      [=](shard_atom, const v1::ShardRegistration& shard, actors::ShardActor actor) {
        return on_shard(self, shard, std::move(actor));
      },
      [=](clusters_atom) -> caf::result<v1::ClusterList> { return list_clusters(self); },
      [=](nodes_atom, const std::string& id, bool from_agents) {
        return on_nodes(self, id, from_agents);
      },
      [=](const v1::ManifestSubmission& submission) -> caf::result<v1::SubmissionReply> {
        return on_submission(self, submission);
      },
      [=](v1::SchedulingDecision& changed) { on_changed_decision(self, changed); },
      [=](requests_atom) -> caf::result<v1::RequestList> {
        v1::RequestList list = self->state.requests->book().list();
        list.set_reconciling(reconciling(self->state));
        return list;
      },
      [=](reconcile_atom) { on_reconcile_message(self); },
      [=](quotas_atom) { return on_quotas(self); },
      [=](const v1::FinishedPlacements& finished) { on_finished(self, finished); },
      [=](requests_atom, const std::string& id, bool wait) {
        return on_request_status(self, id, wait);
      },
  };
}

}  // namespace

runtime::HubActor spawn_hub(caf::actor_system& system, const actors::SupervisorActor& supervisor,
                            const std::vector<actors::SchedulerActor>& schedulers,
                            const HubSettings& settings) {
  return system.spawn(hub, supervisor, schedulers, settings);
}

}  // namespace unisched::runtime
