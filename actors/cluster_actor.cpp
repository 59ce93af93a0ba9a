#include "actors/cluster_actor.hpp"

#include <absl/container/flat_hash_map.h>
#include <spdlog/spdlog.h>
#include <caf/actor_cast.hpp>
#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include <map>
#include <optional>

#include "actors/commit_wire.hpp"
#include "actors/core_summaries.hpp"
#include "actors/left_out_log.hpp"
#include "actors/snapshot_transfer.hpp"
#include "actors/stray_errors.hpp"
#include "actors/until_acknowledged.hpp"
#include "cores/cluster_core.hpp"
#include "messages/caf_types.hpp"
#include "messages/convert.hpp"
#include "messages/snapshot_parts.hpp"

namespace unisched::actors {
namespace {

using namespace unisched::atoms;
using Clock = std::chrono::steady_clock;

struct Subscriber {
  ViewSubscriberActor handle;
  uint64_t revision = 0;  // the last revision of the view it was sent
};

struct ClusterActorState {
  std::optional<ClusterCore> core;
  AgentActor agent;
  caf::strong_actor_ptr owner;               // the supervisor: the only one that may bind
  PlacementListenerActor finished_listener;  // null: nobody follows finished work
  ClusterActorSettings settings;
  std::vector<Subscriber> subscribers;
  std::vector<caf::response_promise> resync_waiters;
  // placement id -> the scheduler that committed it; looked up, never walked
  absl::flat_hash_map<std::string, CommitterActor> committers;
  Clock::time_point last_confirmed;  // on the actor clock (virtual in deterministic tests)
  messages::AgentSnapshotAssembler pushed_parts;  // of the snapshot the agent is pushing
  UpdateRateLimit rate_limit;
  uint64_t refused_at_last_position = 0;  // rate_limit.refused() when the agent last reported
  static inline const char* name = "cluster_actor";
};

using Self = ClusterActor::stateful_pointer<ClusterActorState>;

v1::PlacementReport report_placements(const ClusterCore& core, const v1::PlacementQuery& query) {
  v1::PlacementReport report;
  report.set_synced(core.synced());
  if (query.list_held()) {
    for (std::string& id : core.held_placements()) {
      report.add_held(std::move(id));
    }
  }
  for (const std::string& id : query.placement_ids()) {
    switch (core.placement_state(id)) {
      case ClusterCore::PlacementState::Pending:
        report.add_states(v1::PlacementReport::PENDING);
        break;
      case ClusterCore::PlacementState::Running:
        report.add_states(v1::PlacementReport::RUNNING);
        break;
      case ClusterCore::PlacementState::Ended:
        report.add_states(v1::PlacementReport::ENDED);
        break;
      case ClusterCore::PlacementState::Refused:
        report.add_states(v1::PlacementReport::REFUSED);
        break;
      case ClusterCore::PlacementState::Unknown:
        report.add_states(v1::PlacementReport::UNKNOWN);
        break;
    }
  }
  return report;
}

v1::Ack make_ack(const ClusterCore& core, uint64_t epoch, const UpdateOutcome& outcome) {
  v1::Ack ack;
  ack.set_cluster_id(core.cluster_id());
  ack.set_epoch(epoch);
  ack.set_version(outcome.version);
  switch (outcome.status) {
    case AckStatus::Applied:
      ack.set_status(v1::Ack::APPLIED);
      break;
    case AckStatus::Duplicate:
      ack.set_status(v1::Ack::DUPLICATE);
      break;
    case AckStatus::Gap:
      ack.set_status(v1::Ack::GAP);
      break;
    case AckStatus::Rejected:
      ack.set_status(v1::Ack::REJECTED);
      ack.set_error(outcome.error);
      break;
  }
  return ack;
}

/// Brings every subscriber up to the view's revision: the changes it missed, or the whole view.
void notify_subscribers(Self self) {
  const ClusterCore& core = *self->state.core;
  for (Subscriber& subscriber : self->state.subscribers) {
    if (subscriber.revision == core.revision()) {
      continue;
    }
    if (auto changes = core.published().changes_since(subscriber.revision)) {
      for (const auto& revision : *changes) {
        self->send(subscriber.handle, messages::ViewFeed{revision});
      }
    } else {
      self->send(subscriber.handle, messages::ViewFeed{core.published().whole()});
    }
    subscriber.revision = core.revision();
  }
}

/// Tells the schedulers whose placements the cluster refused, so they place them again.
void hand_back_refusals(Self self,
                        const std::vector<std::pair<std::string, std::string>>& refusals) {
  for (const auto& [id, reason] : refusals) {
    const auto committer = self->state.committers.find(id);
    if (committer == self->state.committers.end()) {
      continue;
    }
    v1::RefusedPlacement refused;
    refused.set_id(id);
    refused.set_reason(reason);
    // Until it acknowledges (found by `unisched simulate`: a lost refusal left a request PLACED
    // whose replica never ran).
    constexpr int kRefusalTries = 10;
    const CommitterActor scheduler = committer->second;
    send_until_acknowledged(
        self, refused, AckRetry{kRefusalTries, self->state.settings.refusal_ack_timeout},
        [scheduler](const v1::RefusedPlacement&) {
          return std::optional<CommitterActor>{scheduler};
        },
        [](const v1::RefusedPlacement&) {});
    self->state.committers.erase(committer);
  }
}

/// Tells the schedulers that committed placements the cluster confirmed that they are settled
/// (no refusal will follow), and forgets who committed them.
void forget_settled(Self self, const std::vector<std::string>& applied) {
  std::map<CommitterActor, v1::SettledPlacements> settled;
  for (const std::string& id : applied) {
    const auto committer = self->state.committers.find(id);
    if (committer == self->state.committers.end()) {
      continue;
    }
    v1::SettledPlacements& message = settled[committer->second];
    message.set_cluster_id(self->state.core->cluster_id());
    message.add_placement_ids(id);
    self->state.committers.erase(committer);
  }
  for (auto& [scheduler, message] : settled) {
    self->send(scheduler, std::move(message));
  }
}

/// Tells the listener of placements whose work ended (the ledger frees their quota). Told as
/// the agent reports them, even from an update the view cannot take: the work ended either way.
void tell_finished(Self self, const std::vector<std::string>& finished) {
  if (finished.empty() || !self->state.finished_listener) {
    return;
  }
  v1::FinishedPlacements message;
  message.set_cluster_id(self->state.core->cluster_id());
  message.mutable_placement_ids()->Add(finished.begin(), finished.end());
  self->send(self->state.finished_listener, std::move(message));
}

void answer_resync_waiters(Self self) {
  UpdateOutcome done{AckStatus::Applied, self->state.core->position().version, {}};
  const auto ack = make_ack(*self->state.core, self->state.core->position().epoch, done);
  for (auto& waiter : self->state.resync_waiters) {
    waiter.deliver(ack);
  }
  self->state.resync_waiters.clear();
}

void pull_snapshot(Self self);

/// Carries out what the core decided after an event: warnings of nodes left out, refusals
/// handed back, subscribers brought up to date, and a snapshot pulled now or after the backoff.
void carry_out(Self self, const ClusterEffects& effects) {
  const ClusterCore& core = *self->state.core;
  actors::warn_left_out("cluster " + core.cluster_id(), effects.left_out, core.nodes_left_out());
  hand_back_refusals(self, effects.refused);
  notify_subscribers(self);
  if (effects.pull_snapshot) {
    pull_snapshot(self);
  }
  if (effects.pull_after_backoff) {
    self->delayed_send(self, self->state.settings.retry_backoff, retry_atom_v);
  }
}

/// What a snapshot says of placements besides the view, kept while the view takes its nodes.
struct SnapshotPlacements {
  explicit SnapshotPlacements(const model::ViewSnapshot& snapshot)
      : applied(snapshot.applied_placements), finished(snapshot.finished_placements) {}
  std::vector<std::string> applied;
  std::vector<std::string> finished;
};

/// What follows a snapshot the view took: the placements it settled, then the core's effects,
/// then everyone waiting for the view.
void after_snapshot(Self self, const SnapshotPlacements& placements,
                    const ClusterEffects& effects) {
  self->state.last_confirmed = self->clock().now();
  tell_finished(self, placements.finished);  // again: the update that told it may be lost
  forget_settled(self, placements.applied);
  forget_settled(self, placements.finished);
  carry_out(self, effects);
  answer_resync_waiters(self);
}

void on_snapshot(Self self, model::ViewSnapshot snapshot) {
  ClusterCore& core = *self->state.core;
  const SnapshotPlacements placements(snapshot);
  const SnapshotOutcome outcome = core.on_snapshot(std::move(snapshot));
  if (outcome.problem) {
    spdlog::warn("cluster {}: snapshot refused: {}", core.cluster_id(), *outcome.problem);
    carry_out(self, outcome.effects);
    return;
  }
  spdlog::info("cluster {}: resynced from a full snapshot at version {} ({} nodes)",
               core.cluster_id(), core.position().version, core.view().size());
  after_snapshot(self, placements, outcome.effects);
}

/// The agent's whole state, pushed rather than pulled (an agent that starts over): applied once
/// its last part arrived, answered with the position it gave the view or why it was refused.
v1::Ack on_pushed_snapshot(Self self, const messages::AgentSnapshot& pushed) {
  ClusterCore& core = *self->state.core;
  const uint64_t epoch = pushed.snapshot ? pushed.snapshot->epoch : 0;
  auto taken = self->state.pushed_parts.add(pushed);
  if (!taken || !taken.value()) {
    v1::Ack ack = make_ack(core, epoch,
                           {taken ? AckStatus::Applied : AckStatus::Rejected,
                            core.position().version, taken ? std::string() : taken.error()});
    if (taken) {
      ack.set_status(v1::Ack::PART_TAKEN);
    }
    return ack;
  }
  const SnapshotPlacements placements(*taken.value());
  SnapshotOutcome outcome = core.on_snapshot(std::move(*taken.value()));
  if (outcome.problem) {
    spdlog::warn("cluster {}: pushed snapshot refused: {}", core.cluster_id(), *outcome.problem);
    carry_out(self, outcome.effects);
    return make_ack(core, epoch,
                    {AckStatus::Rejected, core.position().version, std::move(*outcome.problem)});
  }
  spdlog::info("cluster {}: the agent started over at version {} ({} nodes)", core.cluster_id(),
               core.position().version, core.view().size());
  after_snapshot(self, placements, outcome.effects);
  return make_ack(core, core.position().epoch, {AckStatus::Applied, core.position().version, {}});
}

/// Pulls the agent's whole state, part by part; the core counts the pull in flight.
void pull_snapshot(Self self) {
  if (!self->state.agent) {
    carry_out(self, self->state.core->on_resync_failed());  // pulled once an agent is bound
    return;
  }
  v1::SnapshotRequest request;
  request.mutable_cluster()->set_cluster_id(self->state.core->cluster_id());
  request.set_reason("the view needs a full resync");
  pull_snapshot_parts<messages::AgentSnapshot>(
      self, self->state.agent, self->state.settings.pull_timeout, std::move(request),
      [=](caf::expected<model::ViewSnapshot>& snapshot) {
        if (snapshot) {
          on_snapshot(self, std::move(*snapshot));
          return;
        }
        // A snapshot refused (malformed, a stray part) is worth a warning; an agent that does
        // not answer is found by the supervisor's probes.
        const bool refused =
            messages::error_code(snapshot.error()) == messages::Error::InvalidArgument;
        spdlog::log(refused ? spdlog::level::warn : spdlog::level::debug,
                    "cluster {}: snapshot pull failed: {}", self->state.core->cluster_id(),
                    messages::error_detail(snapshot.error()));
        carry_out(self, self->state.core->on_resync_failed());
      });
}

v1::ClusterSummary summarize(const Self self) {
  v1::ClusterSummary summary = summarize(*self->state.core);
  summary.set_throttled(self->state.rate_limit.refused());
  summary.set_staleness_ms(std::chrono::duration_cast<std::chrono::milliseconds>(
                               self->clock().now() - self->state.last_confirmed)
                               .count());
  return summary;
}

/// The answer to an update over the cluster's rate: nothing taken, send it again after `wait`.
v1::Ack throttled(Self self, const model::ViewUpdate& update, std::chrono::milliseconds wait) {
  const ClusterCore& core = *self->state.core;
  const UpdateRateLimits& limits = self->state.settings.update_limits;
  v1::Ack ack;
  ack.set_cluster_id(core.cluster_id());
  ack.set_epoch(update.epoch);
  ack.set_version(core.position().version);
  ack.set_status(v1::Ack::THROTTLED);
  ack.set_retry_after_ms(static_cast<uint32_t>(wait.count()));
  ack.set_error(fmt::format(
      "over the cluster's update rate ({:g} updates/s, {:g} node changes/s): send update {} "
      "again in {} ms",
      limits.updates_per_second, limits.node_changes_per_second, update.version, wait.count()));
  return ack;
}

/// An update from the agent: applied by the core, then its consequences (settled and refused
/// placements, subscribers, a snapshot pull after a gap).
v1::Ack on_update(Self self, const messages::AgentUpdate& message) {
  ClusterCore& core = *self->state.core;
  if (!message.update) {
    return make_ack(core, 0, core.reject_update("an update must carry its position"));
  }
  const model::ViewUpdate& update = *message.update;
  if (self->current_sender() != caf::actor_cast<caf::strong_actor_ptr>(self->state.agent)) {
    // Only the agent the hub admitted (certificate or token) speaks for this cluster.
    spdlog::warn("cluster {}: update {} refused: not from the cluster's registered agent",
                 core.cluster_id(), update.version);
    return make_ack(core, update.epoch,
                    core.reject_update("sender: not the cluster's registered agent"));
  }
  if (const auto wait = self->state.rate_limit.admit(
          update.changes.size() + update.usage_changes.size(), self->clock().now())) {
    return throttled(self, update, *wait);
  }
  std::vector<std::string> applied_placements;
  if (message.problem.empty()) {
    applied_placements = update.applied_placements;
    applied_placements.insert(applied_placements.end(), update.finished_placements.begin(),
                              update.finished_placements.end());  // they ran: settled too
    tell_finished(self, update.finished_placements);
  }
  // The update is copied, not its node states: they stay shared with the agent's.
  const UpdateOutcome outcome =
      message.problem.empty() ? core.on_update(update) : core.reject_update(message.problem);
  if (outcome.status == AckStatus::Rejected) {
    spdlog::warn("cluster {}: update {} rejected: {}", core.cluster_id(), update.version,
                 outcome.error);
  } else if (outcome.status == AckStatus::Gap) {
    spdlog::info("cluster {}: gap before update {} (holding {}); pulling a full snapshot",
                 core.cluster_id(), update.version, core.position().version);
  } else {
    self->state.last_confirmed = self->clock().now();
  }
  forget_settled(self, applied_placements);
  carry_out(self, outcome.effects);
  return make_ack(core, update.epoch, outcome);
}

/// A scheduler's commit: reserved by compare-and-set; an accepted one is ordered from the agent
/// and its committer remembered, to hear of it when it is settled or refused.
v1::CommitReply on_commit(Self self, v1::CommitRequest& request) {
  ClusterCore& core = *self->state.core;
  ClusterCommit commit = commit_of(request);
  const CommitOutcome outcome = core.commit(std::move(commit.commit), commit.mode);
  v1::CommitReply reply;
  reply.set_revision(outcome.revision);
  reply.set_reason(outcome.reason);
  if (outcome.status != CommitStatus::Accepted) {
    reply.set_status(outcome.status == CommitStatus::Conflict ? v1::CommitReply::CONFLICT
                                                              : v1::CommitReply::REFUSED);
    return reply;
  }
  reply.set_status(v1::CommitReply::ACCEPTED);
  spdlog::debug("cluster {}: commit of {} accepted ({})", core.cluster_id(), request.request_id(),
                outcome.reason.empty() ? "reserved" : outcome.reason);
  const auto committer = caf::actor_cast<CommitterActor>(self->current_sender());
  v1::PlacementOrder order;
  order.set_cluster_id(core.cluster_id());
  for (const auto& placement : request.placements()) {
    self->state.committers[placement.id()] = committer;
  }
  order.mutable_placements()->Swap(request.mutable_placements());  // the request ends here
  self->send(self->state.agent, std::move(order));
  notify_subscribers(self);
  return reply;
}

/// From a scheduler: an incomplete gang, or a commit whose answer it never got. The agent may
/// have been ordered to carry them out already, so it is told to release them too (it ignores
/// placements it does not run).
void on_release(Self self, const v1::ReleaseOrder& order) {
  const std::vector<std::string> ids(order.placement_ids().begin(), order.placement_ids().end());
  spdlog::debug("cluster {}: releasing {}", self->state.core->cluster_id(),
                order.ShortDebugString());
  self->state.core->release(ids);
  self->state.core->give_up({order.request_ids().begin(), order.request_ids().end()});
  for (const std::string& id : ids) {
    self->state.committers.erase(id);
  }
  if (self->state.agent) {
    self->send(self->state.agent, order);
  }
  notify_subscribers(self);
}

/// Sends the agent again what it has not confirmed: it may have been lost on the way.
void resend_unconfirmed(Self self) {
  ClusterCore::Resend resend = self->state.core->on_resend_period();
  if (!self->state.agent) {
    return;
  }
  if (!resend.orders.empty()) {
    spdlog::debug("cluster {}: sending {} unconfirmed placements again",
                  self->state.core->cluster_id(), resend.orders.size());
    v1::PlacementOrder order;
    order.set_cluster_id(self->state.core->cluster_id());
    for (const model::Reservation& reservation : resend.orders) {
      messages::to_proto(reservation, *order.add_placements());
    }
    self->send(self->state.agent, std::move(order));
  }
  if (!resend.releases.empty() || !resend.released_requests.empty()) {
    spdlog::debug("cluster {}: sending {} unconfirmed releases and {} given-up requests again",
                  self->state.core->cluster_id(), resend.releases.size(),
                  resend.released_requests.size());
    v1::ReleaseOrder release;
    release.set_cluster_id(self->state.core->cluster_id());
    release.mutable_placement_ids()->Add(resend.releases.begin(), resend.releases.end());
    release.mutable_request_ids()->Add(resend.released_requests.begin(),
                                       resend.released_requests.end());
    self->send(self->state.agent, std::move(release));
  }
}

messages::ViewFeed on_subscribe(Self self, ViewSubscriberActor subscriber) {
  self->monitor(subscriber);
  self->state.subscribers.push_back({subscriber, self->state.core->revision()});
  self->send(subscriber, health_atom_v, self->state.core->cluster_id(),
             self->state.core->healthy());
  return messages::ViewFeed{self->state.core->published().whole()};
}

/// A resync the supervisor asks for, answered once the view is pulled; at once when the view is
/// already where the agent stands (`agent_at`) and no resync is under way.
caf::result<v1::Ack> on_resync(Self self, std::optional<model::StreamPosition> agent_at) {
  const ClusterCore& core = *self->state.core;
  if (agent_at && core.resync_needless(*agent_at)) {
    return make_ack(core, agent_at->epoch, {AckStatus::Applied, agent_at->version, {}});
  }
  const ClusterEffects effects = self->state.core->request_resync();
  auto promise = self->make_response_promise();
  self->state.resync_waiters.push_back(promise);
  carry_out(self, effects);
  return promise;
}

void on_health(Self self, bool healthy) {
  if (self->state.core->set_healthy(healthy)) {
    spdlog::info("cluster {}: now {}", self->state.core->cluster_id(),
                 healthy ? "healthy" : "unhealthy");
    for (const Subscriber& subscriber : self->state.subscribers) {
      self->send(subscriber.handle, health_atom_v, self->state.core->cluster_id(), healthy);
    }
  }
}

/// Where the agent stands, as its probe answer said.
void on_agent_position(Self self, uint64_t epoch, uint64_t version) {
  ClusterCore& core = *self->state.core;
  if (core.in_step_with({epoch, version})) {
    self->state.last_confirmed = self->clock().now();
  }
  // Updates refused over the rate since the last report are on their way again, not lost: the
  // position says nothing about a gap until the agent is in step once more.
  const uint64_t refused = self->state.rate_limit.refused();
  carry_out(self, refused == std::exchange(self->state.refused_at_last_position, refused)
                      ? core.on_agent_position(epoch, version)
                      : core.resume_resync());
}

ClusterActor::behavior_type cluster_actor(Self self, std::string cluster_id, AgentActor agent,
                                          caf::strong_actor_ptr owner,
                                          ClusterActorSettings settings) {
  self->state.core.emplace(std::move(cluster_id));
  self->state.last_confirmed = self->clock().now();
  self->state.agent = std::move(agent);
  self->state.settings = settings;
  self->state.rate_limit = UpdateRateLimit(settings.update_limits);
  self->state.owner = owner;
  self->monitor(owner);
  log_stray_errors(self, "cluster " + self->state.core->cluster_id());
  self->delayed_send(self, settings.resend_interval, resend_atom_v);
  self->set_down_handler([=](caf::down_msg& down) {
    if (down.source == owner) {
      self->quit(down.reason);
      return;
    }
    auto& subscribers = self->state.subscribers;
    subscribers.erase(std::remove_if(subscribers.begin(), subscribers.end(),
                                     [&](const Subscriber& s) { return s.handle == down.source; }),
                      subscribers.end());
  });
  return {
      [=](const messages::AgentUpdate& message) { return on_update(self, message); },
      [=](push_atom, const messages::AgentSnapshot& snapshot) {
        return on_pushed_snapshot(self, snapshot);
      },
      [=](view_atom) { return messages::to_proto(self->state.core->published().snapshot()); },
      [=](feed_atom) { return messages::ViewFeed{self->state.core->published().whole()}; },
      [=](feed_atom, uint64_t held) {
        return messages::ViewFeed{self->state.core->published().catch_up(held)};
      },
      [=](summary_atom) { return summarize(self); },
      [=](subscribe_atom, ViewSubscriberActor subscriber) {
        return on_subscribe(self, std::move(subscriber));
      },
      [=](resync_atom) { return on_resync(self, std::nullopt); },
      [=](resync_atom, uint64_t epoch, uint64_t version) {
        return on_resync(self, model::StreamPosition{epoch, version});
      },
      [=](health_atom, bool healthy) { on_health(self, healthy); },
      [=](v1::CommitRequest& request) { return on_commit(self, request); },
      [=](const v1::ReleaseOrder& order) {
        on_release(self, order);
        return make_ack(*self->state.core, self->state.core->position().epoch,
                        {AckStatus::Applied, self->state.core->position().version, {}});
      },
      [=](const v1::PlacementQuery& query) { return report_placements(*self->state.core, query); },
      [=](position_atom, uint64_t epoch, uint64_t version) {
        on_agent_position(self, epoch, version);
      },
      [=](bind_atom, AgentActor agent) {
        self->state.agent = std::move(agent);
        carry_out(self, self->state.core->resume_resync());
      },
      [=](bind_atom, PlacementListenerActor listener) {
        // Only the supervisor says who learns of finished work (it frees quota).
        if (self->current_sender() == self->state.owner) {
          self->state.finished_listener = std::move(listener);
        }
      },
      [=](retry_atom) { carry_out(self, self->state.core->resume_resync()); },
      [=](resend_atom) {
        resend_unconfirmed(self);
        self->delayed_send(self, self->state.settings.resend_interval, resend_atom_v);
      },
  };
}

}  // namespace

ClusterActor spawn_cluster_actor(caf::actor_system& system, const std::string& cluster_id,
                                 const AgentActor& agent, const caf::strong_actor_ptr& owner,
                                 const ClusterActorSettings& settings) {
  return system.spawn(cluster_actor, cluster_id, agent, owner, settings);
}

}  // namespace unisched::actors
