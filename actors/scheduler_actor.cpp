#include "actors/scheduler_actor.hpp"

#include <spdlog/spdlog.h>
#include <caf/actor_cast.hpp>
#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>

#include <map>
#include <memory>
#include <random>
#include <set>

#include "messages/caf_types.hpp"
#include "messages/convert.hpp"
#include "policy/pipeline.hpp"

namespace unisched::actors {
namespace {

using namespace unisched::atoms;
using Clock = std::chrono::steady_clock;

struct LocalCluster {
  policy::ClusterInfo info;
  model::ClusterView view;
  uint64_t revision = 0;
  std::map<std::string, uint64_t> node_revisions;
  caf::actor actor;  // invalid until subscribed
};

struct Work {
  std::string id;
  model::SchedulingRequestSpec spec;
  caf::typed_response_promise<v1::SchedulingDecision> promise;  // invalid for requeued work
  Clock::time_point submitted;
  uint32_t attempts = 0;
  uint64_t next_replica = 0;
  std::vector<v1::SchedulingDecision::Replica> placed;
};

struct SchedulerData {
  caf::actor supervisor;
  std::map<std::string, LocalCluster> clusters;
  policy::Policy policy;
  SchedulerSettings settings;
  std::map<std::pair<int64_t, uint64_t>, Work> queue;  // (-priority, arrival) -> work
  uint64_t arrivals = 0;
  bool busy = false;  // one request's commits are in flight
  std::map<std::string, model::SchedulingRequestSpec> committed;  // request id -> spec
  v1::SchedulerSummary summary;
  // Drives a policy's draws; seeded apart (unless set) so that schedulers draw differently.
  std::mt19937_64 draw_seeds;
  static inline const char* name = "scheduler";
};

using Self = caf::stateful_actor<SchedulerData>;

void process_next(Self* self);

void replace_copy(LocalCluster& local, const v1::ClusterSnapshot& message) {
  auto snapshot = messages::from_proto(message);
  if (!snapshot || local.view.replace(std::move(snapshot->nodes), snapshot->resources,
                                      model::Allocation::MayExceed)) {
    spdlog::error("scheduler: unusable view of cluster {}", local.info.id);
    return;
  }
  local.revision = snapshot->version;
  local.node_revisions = std::move(snapshot->node_revisions);
}

policy::ClusterInfo info_of(const v1::ClusterRegistration& registration) {
  policy::ClusterInfo info;
  info.id = registration.identity().cluster_id();
  info.region = registration.region();
  info.zone = registration.zone();
  for (const auto& [type, spelling] : model::kMachineTypes) {
    if (spelling == registration.machine_type()) {
      info.machine_type = type;
    }
  }
  return info;
}

void subscribe(Self* self, const std::string& id) {
  self->request(self->state.supervisor, std::chrono::seconds(2), clusters_atom_v, id)
      .then(
          [=](caf::actor& cluster_actor) {
            self->request(cluster_actor, std::chrono::seconds(2), subscribe_atom_v,
                          caf::actor_cast<caf::actor>(self))
                .then(
                    [=](v1::ClusterSnapshot& snapshot) {
                      LocalCluster& local = self->state.clusters.at(id);
                      local.actor = cluster_actor;
                      self->monitor(cluster_actor);
                      replace_copy(local, snapshot);
                      process_next(self);
                    },
                    [=](caf::error&) {
                      self->delayed_send(self, std::chrono::milliseconds(100), subscribe_atom_v,
                                         id);
                    });
          },
          [=](caf::error&) {
            self->delayed_send(self, std::chrono::milliseconds(100), subscribe_atom_v, id);
          });
}

/// Applies one change of a cluster's view from the feed; out of step, it fetches the whole view.
void on_feed(Self* self, const v1::IncrementalUpdate& message) {
  auto found = self->state.clusters.find(message.cluster_id());
  if (found == self->state.clusters.end()) {
    return;
  }
  LocalCluster& local = found->second;
  auto update = messages::from_proto(message);
  if (update && update->base_version == local.revision &&
      !local.view.apply(update->changes, model::Allocation::MayExceed)) {
    if (update->resources) {
      local.view.set_resources(*update->resources);
    }
    local.revision = update->version;
    for (const auto& change : update->changes) {
      if (change.kind == model::NodeChangeKind::Remove) {
        local.node_revisions.erase(change.node.name);
      } else {
        local.node_revisions[change.node.name] = update->version;
      }
    }
    return;
  }
  if (update && update->version <= local.revision) {
    return;  // already have it
  }
  self->request(local.actor, std::chrono::seconds(2), view_atom_v)
      .then([=](v1::ClusterSnapshot& snapshot) {
        replace_copy(self->state.clusters.at(message.cluster_id()), snapshot);
      });
}

void finish(Self* self, Work& work, v1::SchedulingDecision::Status status,
            std::vector<std::string> reasons) {
  v1::SchedulingDecision decision;
  decision.set_request_id(work.id);
  decision.set_status(status);
  for (auto& replica : work.placed) {
    *decision.add_replicas() = std::move(replica);
  }
  for (auto& reason : reasons) {
    decision.add_reasons(std::move(reason));
  }
  decision.set_attempts(work.attempts);
  decision.set_latency_us(
      std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - work.submitted).count());
  auto& summary = self->state.summary;
  switch (status) {
    case v1::SchedulingDecision::PLACED:
      summary.set_placed(summary.placed() + 1);
      break;
    case v1::SchedulingDecision::PARTIALLY_PLACED:
      summary.set_partially_placed(summary.partially_placed() + 1);
      break;
    default:
      summary.set_unschedulable(summary.unschedulable() + 1);
  }
  if (decision.replicas_size() > 0) {
    self->state.committed[work.id] = work.spec;
  }
  if (work.promise.pending()) {
    work.promise.deliver(std::move(decision));
  }
  self->state.busy = false;
  self->send(self, process_atom_v);
}

void attempt(Self* self, std::shared_ptr<Work> work);

/// Refreshes the local copies of `clusters` from their ClusterActors, then tries again.
void refresh_and_retry(Self* self, std::shared_ptr<Work> work,
                       const std::set<std::string>& clusters) {
  auto remaining = std::make_shared<size_t>(clusters.size());
  for (const std::string& id : clusters) {
    const LocalCluster& local = self->state.clusters.at(id);
    self->request(local.actor, std::chrono::seconds(2), view_atom_v)
        .then(
            [=](v1::ClusterSnapshot& snapshot) {
              replace_copy(self->state.clusters.at(id), snapshot);
              if (--*remaining == 0) {
                attempt(self, work);
              }
            },
            [=](caf::error&) {
              if (--*remaining == 0) {
                attempt(self, work);
              }
            });
  }
}

void attempt(Self* self, std::shared_ptr<Work> work) {
  ++work->attempts;
  std::vector<policy::ClusterCandidate> candidates;
  for (auto& [id, local] : self->state.clusters) {
    if (local.actor) {
      candidates.push_back({&local.info, &local.view});
    }
  }
  model::SchedulingRequestSpec remaining = work->spec;
  remaining.replicas = work->spec.replicas - static_cast<int64_t>(work->placed.size());
  const policy::Decision decision =
      policy::decide(remaining, candidates, self->state.policy, self->state.draw_seeds());
  if (decision.placements.empty()) {
    finish(self, *work,
           work->placed.empty() ? v1::SchedulingDecision::UNSCHEDULABLE
                                : v1::SchedulingDecision::PARTIALLY_PLACED,
           decision.reasons());
    return;
  }
  // One CommitRequest per cluster, each on the revisions its copy was at.
  std::map<std::string, v1::CommitRequest> commits;
  std::map<std::string, std::vector<v1::SchedulingDecision::Replica>> replicas;
  for (const auto& placement : decision.placements) {
    const LocalCluster& local = self->state.clusters.at(placement.cluster);
    v1::CommitRequest& commit = commits[placement.cluster];
    commit.set_cluster_id(placement.cluster);
    commit.set_request_id(work->id);
    commit.set_node_level(self->state.settings.commit_mode == CommitMode::NodeRevisions);
    commit.set_revision(local.revision);
    const auto node_revision = local.node_revisions.find(placement.node);
    (*commit.mutable_node_revisions())[placement.node] =
        node_revision == local.node_revisions.end() ? 0 : node_revision->second;
    const std::string placement_id = work->id + "/" + std::to_string(work->next_replica++);
    messages::to_proto(model::Reservation{placement_id, placement.node, placement.cpu_milli,
                                          placement.memory_bytes, placement.devices,
                                          placement.host_ports, placement.device_milli},
                       *commit.add_placements());
    v1::SchedulingDecision::Replica replica;
    replica.set_placement_id(placement_id);
    replica.set_cluster(placement.cluster);
    replica.set_node(placement.node);
    replica.mutable_devices()->Add(placement.devices.begin(), placement.devices.end());
    replica.mutable_device_milli()->Add(placement.device_milli.begin(),
                                        placement.device_milli.end());
    replicas[placement.cluster].push_back(std::move(replica));
  }
  const bool partial = decision.status == policy::DecisionStatus::PartiallyPlaced;
  const std::vector<std::string> partial_reasons = decision.reasons();
  struct Round {
    size_t waiting = 0;
    std::vector<std::string> accepted;
    std::set<std::string> failed;
    std::vector<std::string> reasons;
  };
  auto round = std::make_shared<Round>();
  round->waiting = commits.size();
  const auto on_reply = [=](const std::string& cluster, v1::CommitReply::Status status,
                            const std::string& reason) {
    auto& summary = self->state.summary;
    if (status == v1::CommitReply::ACCEPTED) {
      summary.set_commits(summary.commits() + 1);
      round->accepted.push_back(cluster);
    } else {
      if (status == v1::CommitReply::CONFLICT) {
        summary.set_conflicts(summary.conflicts() + 1);
      }
      round->failed.insert(cluster);
      round->reasons.push_back(cluster + ": commit: " + reason);
    }
    if (--round->waiting > 0) {
      return;
    }
    if (!round->failed.empty() && work->spec.distribution.gang) {
      for (const std::string& accepted : round->accepted) {  // all or nothing
        v1::ReleaseOrder release;
        release.set_cluster_id(accepted);
        for (const auto& replica : replicas.at(accepted)) {
          release.add_placement_ids(replica.placement_id());
        }
        self->send(self->state.clusters.at(accepted).actor, std::move(release));
      }
    } else {
      for (const std::string& accepted : round->accepted) {
        for (const auto& replica : replicas.at(accepted)) {
          work->placed.push_back(replica);
        }
      }
    }
    const bool complete = round->failed.empty();
    if (complete) {
      finish(self, *work,
             partial ? v1::SchedulingDecision::PARTIALLY_PLACED : v1::SchedulingDecision::PLACED,
             partial_reasons);
    } else if (work->attempts <= static_cast<uint32_t>(self->state.settings.max_retries)) {
      summary.set_retries(summary.retries() + 1);
      refresh_and_retry(self, work, round->failed);
    } else {
      round->reasons.push_back("gave up after " + std::to_string(work->attempts) + " attempts");
      finish(self, *work,
             work->placed.empty() ? v1::SchedulingDecision::UNSCHEDULABLE
                                  : v1::SchedulingDecision::PARTIALLY_PLACED,
             round->reasons);
    }
  };
  for (auto& [cluster, commit] : commits) {
    const std::string id = cluster;
    self->request(self->state.clusters.at(cluster).actor, self->state.settings.commit_timeout,
                  std::move(commit))
        .then([=](v1::CommitReply& reply) { on_reply(id, reply.status(), reply.reason()); },
              [=](caf::error& error) {
                on_reply(id, v1::CommitReply::REFUSED, "no reply: " + to_string(error));
              });
  }
}

void process_next(Self* self) {
  auto& state = self->state;
  if (state.busy || state.queue.empty()) {
    return;
  }
  auto work = std::make_shared<Work>(std::move(state.queue.begin()->second));
  state.queue.erase(state.queue.begin());
  state.busy = true;
  attempt(self, work);
}

void enqueue(Self* self, Work work) {
  const int64_t priority = work.spec.priority;
  self->state.queue.emplace(std::make_pair(-priority, self->state.arrivals++), std::move(work));
  process_next(self);
}

caf::behavior scheduler(Self* self, caf::actor supervisor,
                        std::vector<policy::ClusterInfo> clusters, policy::Policy policy,
                        SchedulerSettings settings) {
  self->state.supervisor = std::move(supervisor);
  self->state.policy = std::move(policy);
  self->state.settings = settings;
  self->state.draw_seeds.seed(settings.draw_seed != 0 ? settings.draw_seed
                                                      : std::random_device{}());
  for (auto& info : clusters) {
    const std::string id = info.id;
    self->state.clusters[id].info = std::move(info);
    subscribe(self, id);
  }
  self->set_down_handler([=](caf::down_msg& down) {
    for (auto& [id, local] : self->state.clusters) {
      if (local.actor == down.source) {  // a restarted ClusterActor: follow the new one
        local.actor = caf::actor();
        subscribe(self, id);
      }
    }
  });
  return {
      [=](submit_atom, const std::string& id,
          const model::SchedulingRequestSpec& spec) -> caf::result<v1::SchedulingDecision> {
        auto& summary = self->state.summary;
        summary.set_requests(summary.requests() + 1);
        Work work;
        work.id = id;
        work.spec = spec;
        work.promise = self->make_response_promise<v1::SchedulingDecision>();
        work.submitted = Clock::now();
        auto promise = work.promise;
        enqueue(self, std::move(work));
        return promise;
      },
      [=](summary_atom) { return self->state.summary; },
      [=](const v1::IncrementalUpdate& update) { on_feed(self, update); },
      [=](const v1::ClusterSnapshot& snapshot) {
        if (auto found = self->state.clusters.find(snapshot.cluster_id());
            found != self->state.clusters.end()) {
          replace_copy(found->second, snapshot);
        }
      },
      [=](health_atom, const std::string& id, bool healthy) {
        if (auto found = self->state.clusters.find(id); found != self->state.clusters.end()) {
          found->second.info.healthy = healthy;
        }
        process_next(self);
      },
      [=](const v1::RefusedPlacement& refused) {
        // The cluster could not carry a committed replica out: place that one again.
        const std::string request = refused.id().substr(0, refused.id().rfind('/'));
        const auto spec = self->state.committed.find(request);
        if (spec == self->state.committed.end()) {
          return;
        }
        spdlog::info("scheduler: placement {} refused by its cluster ({}); placing it again",
                     refused.id(), refused.reason());
        auto& summary = self->state.summary;
        summary.set_requeued(summary.requeued() + 1);
        Work work;
        work.id = refused.id() + "-again";
        work.spec = spec->second;
        work.spec.replicas = 1;
        work.spec.distribution.gang = false;
        work.spec.distribution.weights.clear();
        work.submitted = Clock::now();
        enqueue(self, std::move(work));
      },
      [=](join_atom, const v1::ClusterRegistration& registration) {
        // A cluster that joined the hub; one already known keeps its health and copy.
        policy::ClusterInfo info = info_of(registration);
        const std::string id = info.id;
        auto [entry, added] = self->state.clusters.try_emplace(id);
        info.healthy = entry->second.info.healthy;
        entry->second.info = std::move(info);
        if (added) {
          subscribe(self, id);
        }
      },
      [=](subscribe_atom, const std::string& id) { subscribe(self, id); },
      [=](process_atom) { process_next(self); },
  };
}

}  // namespace

caf::actor spawn_scheduler_actor(caf::actor_system& system, const caf::actor& supervisor,
                                 const std::vector<policy::ClusterInfo>& clusters,
                                 const policy::Policy& policy, const SchedulerSettings& settings) {
  return system.spawn(scheduler, supervisor, clusters, policy, settings);
}

}  // namespace unisched::actors
