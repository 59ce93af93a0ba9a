#include "actors/scheduler_actor.hpp"

#include <absl/container/flat_hash_map.h>
#include <spdlog/spdlog.h>
#include <caf/actor_cast.hpp>
#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>

#include "actors/commit_wire.hpp"
#include "actors/countdown.hpp"
#include "actors/scheduler_wire.hpp"
#include "actors/stray_errors.hpp"
#include "actors/until_acknowledged.hpp"
#include "cores/commit_deadlines.hpp"
#include "cores/quota_wire.hpp"
#include "messages/caf_types.hpp"
#include "messages/convert.hpp"

namespace unisched::actors {
namespace {

using namespace unisched::atoms;
using Clock = SchedulerCore::Clock;

struct SchedulerActorState {
  ClusterDirectoryActor directory;
  QuotaActor quota;  // null: no ledger
  std::optional<SchedulerCore> core;
  SchedulerSettings settings;
  // Looked up on every view change, commit and answer; never walked in an order that matters.
  absl::flat_hash_map<std::string, ClusterActor> cluster_actors;  // subscribed ones
  // cluster -> who sends its feed: the ClusterActor that answered the subscription (the one in
  // cluster_actors, or what stands for it there)
  absl::flat_hash_map<std::string, caf::strong_actor_ptr> feed_sources;
  uint64_t tickets = 0;
  absl::flat_hash_map<uint64_t, caf::typed_response_promise<v1::SchedulingDecision>> waiting;
  // request id -> who to tell of changes
  absl::flat_hash_map<std::string, DecisionListenerActor> submitters;
  std::map<std::string, std::vector<v1::ReleaseOrder>> held_releases;  // cluster -> releases
  // cluster -> placements released there lately, sent again should its ClusterActor restart
  // before the agent carried the release out (the ClusterActor's resends die with it).
  std::map<std::string, std::deque<std::string>> recent_releases;
  std::optional<CommitDeadlines> deadlines;   // of the commits sent and not answered yet
  std::optional<Clock::time_point> sweep_at;  // when the timer for overdue commits fires
  // A (process) is in the mailbox: another would find nothing more to start.
  bool advance_pending = false;
  static inline const char* name = "scheduler";
};

using Self = SchedulerActor::stateful_pointer<SchedulerActorState>;

void carry_out(Self self, SchedulerCommands commands);

void replace_view(Self self, const messages::ViewFeed& whole) {
  if (whole.revision && !self->state.core->views().replace(*whole.revision)) {
    spdlog::error("scheduler: unusable view of cluster {}", whole.revision->cluster_id);
  }
}

policy::ClusterInfo info_of(const v1::ClusterRegistration& registration) {
  policy::ClusterInfo info;
  info.id = registration.identity().cluster_id();
  info.region = registration.region();
  info.zone = registration.zone();
  info.view_only = registration.view_only();
  for (const auto& [type, spelling] : model::kMachineTypes) {
    if (spelling == registration.machine_type()) {
      info.machine_type = type;
    }
  }
  return info;
}

/// How often a release is sent before the scheduler gives up on hearing it arrived.
constexpr int kReleaseTries = 10;

/// Sends a release to its cluster until the ClusterActor acknowledges it (found by `unisched
/// simulate --faults drop`: a lost release left a placement running that no decision held).
/// While the cluster's ClusterActor is being restarted, held until the new one is subscribed.
void send_release(Self self, v1::ReleaseOrder release) {
  const auto receiver = [self](const v1::ReleaseOrder& order) -> std::optional<ClusterActor> {
    const auto actor = self->state.cluster_actors.find(order.cluster_id());
    if (actor == self->state.cluster_actors.end()) {
      self->state.held_releases[order.cluster_id()].push_back(order);
      return std::nullopt;
    }
    return actor->second;
  };
  const auto acknowledged = [self](const v1::ReleaseOrder& order) {
    constexpr size_t kRecentReleases = 512;
    auto& recent = self->state.recent_releases[order.cluster_id()];
    recent.insert(recent.end(), order.placement_ids().begin(), order.placement_ids().end());
    while (recent.size() > kRecentReleases) {
      recent.pop_front();
    }
  };
  send_until_acknowledged(self, std::move(release),
                          AckRetry{kReleaseTries, self->state.settings.release_ack_timeout},
                          receiver, acknowledged);
}

void subscribe(Self self, const std::string& id) {
  const auto retry = [=](caf::error&) {
    self->delayed_send(self, self->state.settings.resubscribe_after, subscribe_atom_v, id);
  };
  self->request(self->state.directory, self->state.settings.ask_timeout, clusters_atom_v, id)
      .then(
          [=](ClusterActor& cluster_actor) {
            self->request(cluster_actor, self->state.settings.ask_timeout, subscribe_atom_v,
                          ViewSubscriberActor{caf::actor_cast<SchedulerActor>(self)})
                .then(
                    [=](messages::ViewFeed& whole) {
                      self->state.cluster_actors[id] = cluster_actor;
                      self->state.feed_sources[id] = self->current_sender();
                      self->monitor(cluster_actor);
                      for (v1::ReleaseOrder& held : self->state.held_releases[id]) {
                        send_release(self, std::move(held));
                      }
                      self->state.held_releases.erase(id);
                      replace_view(self, whole);
                      carry_out(self, self->state.core->advance(self->clock().now()));
                    },
                    retry);
          },
          retry);
}

/// Whether `actor` is the ClusterActor this scheduler follows for `cluster` now. A restarted
/// ClusterActor numbers its revisions from 1 again, so a feed entry or an answer of its
/// predecessor that arrives late reads like one of its own: taken as such, it leaves the copy
/// behind for good while its revision looks in step (found by `unisched simulate`, seed 5387).
bool followed(Self self, const std::string& cluster, const caf::strong_actor_ptr& actor) {
  const auto current = self->state.cluster_actors.find(cluster);
  return current != self->state.cluster_actors.end() && actor != nullptr &&
         actor == caf::actor_cast<caf::strong_actor_ptr>(current->second);
}

/// Whether `sender` sends the feed of `cluster` that this scheduler follows now (see followed).
bool from_feed_source(Self self, const std::string& cluster, const caf::strong_actor_ptr& sender) {
  const auto source = self->state.feed_sources.find(cluster);
  return source != self->state.feed_sources.end() && sender != nullptr && sender == source->second;
}

/// One change of a cluster's view from the feed; out of step, it fetches the whole view.
void on_feed(Self self, const messages::ViewFeed& feed) {
  if (!feed.revision ||
      !from_feed_source(self, feed.revision->cluster_id, self->current_sender())) {
    return;
  }
  if (feed.revision->whole) {
    replace_view(self, feed);
    return;
  }
  const auto result = self->state.core->views().apply_feed(*feed.revision);
  const auto actor = self->state.cluster_actors.find(feed.revision->cluster_id);
  if (result != SchedulerViews::FeedResult::NeedsView) {
    return;
  }
  const ClusterActor asked = actor->second;
  self->request(asked, self->state.settings.ask_timeout, feed_atom_v)
      .then([=](messages::ViewFeed& whole) {
        if (whole.revision && followed(self, whole.revision->cluster_id,
                                       caf::actor_cast<caf::strong_actor_ptr>(asked))) {
          replace_view(self, whole);
        }
      });
}

/// Fetches a cluster's whole view, then calls `done` (also when no view came).
void fetch_whole_view(Self self, const ClusterActor& actor, std::function<void()> done) {
  self->request(actor, self->state.settings.ask_timeout, feed_atom_v)
      .then(
          [=](messages::ViewFeed& whole) {
            if (whole.revision && followed(self, whole.revision->cluster_id,
                                           caf::actor_cast<caf::strong_actor_ptr>(actor))) {
              replace_view(self, whole);
            }
            done();
          },
          [=](caf::error&) { done(); });
}

/// Brings a cluster's copy up to date, then calls `done`. A copy its feed keeps in step asks
/// only for what it lacks: after a conflict that is nothing as a rule (the change behind it came
/// down the feed before the answer), and fetching the whole view was 1.8% of a two-scheduler
/// run. The round trip stays: it spaces the retries of schedulers racing for the same nodes.
void catch_up(Self self, const std::string& cluster, const ClusterActor& actor,
              std::function<void()> done) {
  const auto held = self->state.core->views().revision_in_step(cluster);
  if (!held) {
    fetch_whole_view(self, actor, std::move(done));
    return;
  }
  self->request(actor, self->state.settings.ask_timeout, feed_atom_v, *held)
      .then(
          [=](messages::ViewFeed& feed) {
            if (!followed(self, cluster, caf::actor_cast<caf::strong_actor_ptr>(actor))) {
              done();  // the ClusterActor was restarted meanwhile: its successor's feed follows
              return;
            }
            if (feed.revision && feed.revision->whole) {
              replace_view(self, feed);
            } else if (feed.revision && self->state.core->views().apply_feed(*feed.revision) ==
                                            SchedulerViews::FeedResult::NeedsView) {
              fetch_whole_view(self, actor, done);
              return;
            }
            done();
          },
          [=](caf::error&) { done(); });
}

/// Brings the copies the core asked for up to date, then lets it decide again.
void refresh(Self self, uint64_t round, const std::vector<std::string>& clusters) {
  const Countdown one_done(clusters.size(), [=] {
    carry_out(self, self->state.core->on_refreshed(round, self->clock().now()));
  });
  for (const std::string& id : clusters) {
    const auto actor = self->state.cluster_actors.find(id);
    if (actor == self->state.cluster_actors.end()) {
      one_done();
      continue;
    }
    catch_up(self, id, actor->second, one_done);
  }
}

/// Sets the timer for the oldest commit still awaited, unless one is set. Deadlines closer than
/// a sixteenth of the timeout share a firing: a commit times out up to that much late.
void arm_commit_sweep(Self self) {
  auto& state = self->state;
  const auto deadline = state.deadlines->next_deadline();
  if (state.sweep_at || !deadline) {
    return;
  }
  const auto now = self->clock().now();
  state.sweep_at = std::max(*deadline, now + state.settings.commit_timeout / 16);
  self->delayed_send(self, *state.sweep_at - now, process_atom_v);
}

/// Commits unanswered past the timeout count as TimedOut; their answers, should they come
/// later, count no more.
void sweep_overdue_commits(Self self) {
  auto& state = self->state;
  const auto now = self->clock().now();
  if (state.sweep_at && *state.sweep_at <= now) {
    state.sweep_at.reset();  // this is the timer's firing, or later than it
  }
  for (CommitDeadlines::Overdue& overdue : state.deadlines->take_overdue(now)) {
    carry_out(self, state.core->on_commit_result(
                        overdue.round, overdue.cluster, CommitResult::TimedOut,
                        "no answer within " +
                            std::to_string(state.settings.commit_timeout.count()) + " ms",
                        now));
  }
  arm_commit_sweep(self);
}

/// Each commit's answer, or TimedOut when none comes within the commit timeout. The timeout is
/// the scheduler's own sweep, not CAF's per request: see CommitDeadlines.
void send_commits(Self self, uint64_t round, const std::vector<ClusterCommit>& commits) {
  for (const ClusterCommit& commit : commits) {
    const std::string& cluster = commit.cluster_id;
    const auto actor = self->state.cluster_actors.find(cluster);
    if (actor == self->state.cluster_actors.end()) {
      carry_out(self, self->state.core->on_commit_result(round, cluster, CommitResult::TimedOut,
                                                         "the cluster's actor is gone",
                                                         self->clock().now()));
      continue;
    }
    const uint64_t ticket = self->state.deadlines->open(round, cluster, self->clock().now());
    self->request(actor->second, caf::infinite, to_wire(commit))
        .then(
            [=](v1::CommitReply& reply) {
              if (!self->state.deadlines->close(ticket)) {
                return;  // overdue: already counted as TimedOut
              }
              const CommitResult result =
                  reply.status() == v1::CommitReply::ACCEPTED   ? CommitResult::Accepted
                  : reply.status() == v1::CommitReply::CONFLICT ? CommitResult::Conflict
                                                                : CommitResult::Refused;
              carry_out(self, self->state.core->on_commit_result(
                                  round, cluster, result, reply.reason(), self->clock().now()));
            },
            [=](caf::error& error) {
              if (!self->state.deadlines->close(ticket)) {
                return;
              }
              carry_out(self,
                        self->state.core->on_commit_result(round, cluster, CommitResult::TimedOut,
                                                           to_string(error), self->clock().now()));
            });
  }
  arm_commit_sweep(self);
}

/// The ledger's answer to a round's take; no answer in time counts as TimedOut.
void send_quota_take(Self self, uint64_t round, const QuotaTake& take) {
  const std::string queue = take.commit.queue;
  self->request(self->state.quota, self->state.settings.commit_timeout, to_wire(take))
      .then(
          [=](v1::QuotaTakeReply& reply) {
            if (!reply.lease_id().empty()) {
              self->state.core->quota().grant_lease(
                  queue, QuotaLease{reply.lease_id(), amounts_of(reply.lease())});
            }
            const QuotaResult result =
                reply.status() == v1::QuotaTakeReply::TAKEN    ? QuotaResult::Taken
                : reply.status() == v1::QuotaTakeReply::QUEUED ? QuotaResult::Queued
                                                               : QuotaResult::Refused;
            carry_out(self, self->state.core->on_quota_result(round, result, reply.reason(),
                                                              self->clock().now()));
          },
          [=](caf::error& error) {
            carry_out(self,
                      self->state.core->on_quota_result(round, QuotaResult::TimedOut,
                                                        to_string(error), self->clock().now()));
          });
}

void send_quota_releases(Self self, SchedulerCommands& commands) {
  if (!self->state.quota) {
    return;
  }
  for (const QuotaLeaseUse& use : commands.quota_lease_uses) {  // before releases of what it took
    self->send(self->state.quota, to_wire(use));
  }
  if (!commands.quota_releases.empty()) {
    v1::QuotaRelease release;
    release.mutable_ids()->Add(commands.quota_releases.begin(), commands.quota_releases.end());
    self->send(self->state.quota, std::move(release));
  }
  for (const std::string& work_id : commands.quota_withdrawals) {
    v1::QuotaRelease withdraw;
    withdraw.set_withdraw(work_id);
    self->send(self->state.quota, std::move(withdraw));
  }
}

/// Sends what the core decided. Commits last: their answers may come back at once.
void carry_out(Self self, SchedulerCommands commands) {
  auto& state = self->state;
  send_quota_releases(self, commands);
  for (const ClusterRelease& release : commands.releases) {
    send_release(self, to_wire(release));
  }
  for (auto& [ticket, decision] : commands.replies) {
    if (auto promise = state.waiting.find(ticket); promise != state.waiting.end()) {
      promise->second.deliver(to_wire(std::move(decision)));
      state.waiting.erase(promise);
    }
  }
  for (RequestDecision& update : commands.updates) {
    if (const auto submitter = state.submitters.find(update.request_id);
        submitter != state.submitters.end()) {
      self->send(submitter->second, to_wire(std::move(update)));
    }
  }
  for (const std::string& request : commands.forgotten) {
    state.submitters.erase(request);
  }
  for (const RoundMessages& round : commands.rounds) {
    if (!round.refresh.empty()) {
      refresh(self, round.round, round.refresh);
    }
  }
  if (commands.advance_later && !state.advance_pending) {
    state.advance_pending = true;
    self->send(self, process_atom_v);  // behind the view changes already in the mailbox
  }
  for (RoundMessages& round : commands.rounds) {
    if (round.quota_take) {
      send_quota_take(self, round.round, *round.quota_take);
    }
  }
  for (RoundMessages& round : commands.rounds) {
    send_commits(self, round.round, round.commits);
  }
}

/// A restarted ClusterActor: follow the new one, and tell it again the releases its
/// predecessor may not have carried out. Each watched actor serves one cluster.
void on_cluster_actor_down(Self self, const caf::down_msg& down) {
  auto& actors = self->state.cluster_actors;
  const auto lost = std::find_if(actors.begin(), actors.end(),
                                 [&](const auto& entry) { return entry.second == down.source; });
  if (lost == actors.end()) {
    return;
  }
  const std::string cluster = lost->first;
  actors.erase(lost);
  self->state.feed_sources.erase(cluster);
  self->state.core->views().lose(cluster);
  subscribe(self, cluster);
  carry_out(self, self->state.core->on_cluster_actor_lost(cluster, self->clock().now()));
  if (auto recent = self->state.recent_releases.extract(cluster); !recent.empty()) {
    v1::ReleaseOrder again;
    again.set_cluster_id(cluster);
    again.mutable_placement_ids()->Add(recent.mapped().begin(), recent.mapped().end());
    send_release(self, std::move(again));  // held until resubscribed
  }
}

caf::result<v1::SchedulingDecision> on_submit(Self self, const std::string& id,
                                              model::SchedulingRequestSpec& spec) {
  auto& state = self->state;
  const uint64_t ticket = ++state.tickets;
  // Read before the promise is made: making it takes the sender out of the message.
  if (const auto sender = caf::actor_cast<DecisionListenerActor>(self->current_sender())) {
    state.submitters[id] = sender;
  }
  auto promise = self->make_response_promise<v1::SchedulingDecision>();
  state.waiting.emplace(ticket, promise);
  carry_out(self, state.core->submit(id, std::move(spec), ticket, self->clock().now()));
  return promise;
}

/// A cluster that joined the hub; one already known keeps its health and copy.
void on_join(Self self, const v1::ClusterRegistration& registration) {
  policy::ClusterInfo info = info_of(registration);
  const std::string id = info.id;
  if (self->state.core->views().add(std::move(info))) {
    subscribe(self, id);
  }
}

SchedulerActor::behavior_type scheduler(Self self, ClusterDirectoryActor directory,
                                        std::vector<policy::ClusterInfo> clusters,
                                        policy::Policy policy, SchedulerSettings settings,
                                        QuotaActor quota) {
  self->state.directory = std::move(directory);
  self->state.quota = std::move(quota);
  settings.quotas = static_cast<bool>(self->state.quota);
  self->state.settings = settings;
  self->state.deadlines.emplace(settings.commit_timeout);
  self->state.core.emplace(std::move(policy), settings);
  log_stray_errors(self, "scheduler");
  for (auto& info : clusters) {
    const std::string id = info.id;
    self->state.core->views().add(std::move(info));
    subscribe(self, id);
  }
  self->set_down_handler([=](caf::down_msg& down) { on_cluster_actor_down(self, down); });
  return {
      [=](submit_atom, const std::string& id, model::SchedulingRequestSpec& spec) {
        return on_submit(self, id, spec);
      },
      [=](summary_atom) -> caf::result<v1::SchedulerSummary> {
        return to_wire(self->state.core->counts(self->clock().now()));
      },
      [=](const messages::ViewFeed& feed) { on_feed(self, feed); },
      [=](health_atom, const std::string& id, bool healthy) {
        self->state.core->views().set_healthy(id, healthy);
        carry_out(self, self->state.core->advance(self->clock().now()));
      },
      [=](const v1::RefusedPlacement& refused) {
        spdlog::info("scheduler: placement {} refused by its cluster ({}); placing it again",
                     refused.id(), refused.reason());
        carry_out(self, self->state.core->on_refused_placement(refused.id(), refused.reason(),
                                                               self->clock().now()));
        return v1::Ack{};  // a refusal told twice is placed again once
      },
      [=](const v1::SettledPlacements& settled) {
        carry_out(self, self->state.core->on_settled(
                            {settled.placement_ids().begin(), settled.placement_ids().end()}));
      },
      [=](join_atom, const v1::ClusterRegistration& registration) { on_join(self, registration); },
      [=](subscribe_atom, const std::string& id) { subscribe(self, id); },
      [=](process_atom) {
        self->state.advance_pending = false;
        sweep_overdue_commits(self);
        carry_out(self, self->state.core->advance(self->clock().now()));
      },
      [=](const v1::QuotaAdmission& admission) {
        carry_out(self, self->state.core->on_admitted(admission.work_id(), self->clock().now()));
      },
      [=](const v1::QuotaLeaseRevoke& revoke) {
        carry_out(self, self->state.core->quota().on_lease_revoked(revoke.lease_id()));
      },
  };
}

}  // namespace

SchedulerActor spawn_scheduler_actor(caf::actor_system& system,
                                     const ClusterDirectoryActor& directory,
                                     const std::vector<policy::ClusterInfo>& clusters,
                                     const policy::Policy& policy,
                                     const SchedulerSettings& settings, const QuotaActor& quota) {
  return system.spawn(scheduler, directory, clusters, policy, settings, quota);
}

}  // namespace unisched::actors
