#include "runtime/design_grpc_service.hpp"

#include <spdlog/spdlog.h>

#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "messages/caf_types.hpp"
#include "messages/design_convert.hpp"
#include "messages/design_metadata.grpc.pb.h"
#include "messages/errors.hpp"
#include "runtime/grpc_calls.hpp"
#include "runtime/grpc_clusters.hpp"

namespace unisched::runtime {
namespace {

using namespace unisched::atoms;
using grpc::ServerContext;
using grpc::Status;
using grpc::StatusCode;

/// Where the centre stands with a cluster of this door: the agent's run as the door numbers it
/// (the design document has no epochs) and the last version applied; whether a stream of it is
/// open.
struct DesignPosition {
  uint64_t epoch = 0;  ///< 0: the cluster has not started (no version 1 yet)
  uint64_t version = 0;
  bool streaming = false;
  std::string unknown_health;  ///< the healthStatus text last warned of, once per change
};

/// How one update went: applied, or the Ack the stream ends with, or the call's error.
struct StepOutcome {
  Status status = Status::OK;
  std::optional<::Ack::Status> ends_with;
  std::string detail;
};

class DesignMetadataService final : public ::ClusterMetadataService::Service {
 public:
  DesignMetadataService(caf::actor_system& system, const runtime::HubActor& hub,
                        const GrpcServiceSettings& settings,
                        std::shared_ptr<GrpcStreamGuard> streams)
      : system_(system),
        hub_(hub),
        clusters_(system, hub, settings.tokens, view_only(settings)),
        streams_(std::move(streams)) {}

  Status PushIncrementalUpdates(ServerContext* context,
                                grpc::ServerReader<::IncrementalUpdate>* reader,
                                ::Ack* reply) override {
    std::optional<GrpcStreamGuard::Admission> admission;
    if (Status admitted = streams_->admit(context, admission); !admitted.ok()) {
      return admitted;
    }
    ::IncrementalUpdate update;
    std::string cluster;
    actors::GrpcAgentProxyActor proxy;
    int64_t applied = 0;
    struct Release {  // the stream's claim on its cluster, given back however the call ends
      DesignMetadataService* service;
      const std::string* cluster;
      ~Release() { service->end_stream(*cluster); }
    } release{this, &cluster};
    while (reader->Read(&update)) {
      admission->first_message_arrived();
      if (context->IsCancelled()) {
        return Status(StatusCode::CANCELLED, "the agent cancelled the stream");
      }
      if (cluster.empty()) {
        if (Status joined = join(context, update.clusterid(), proxy); !joined.ok()) {
          return joined;
        }
        cluster = update.clusterid();
      } else if (update.clusterid() != cluster) {
        return Status(StatusCode::INVALID_ARGUMENT,
                      "clusterID: one stream carries one cluster's updates: got " +
                          model::quoted_brief(update.clusterid()) + " after \"" + cluster + "\"");
      }
      const StepOutcome step = apply(context, proxy, update);
      if (!step.status.ok()) {
        return step.status;
      }
      if (step.ends_with) {
        fill_ack(cluster, *step.ends_with, applied, step.detail, *reply);
        return Status::OK;
      }
      ++applied;
    }
    if (cluster.empty()) {
      return Status(StatusCode::INVALID_ARGUMENT, "the stream carried no update");
    }
    fill_ack(cluster, ::Ack::APPLIED, applied, "applied", *reply);
    return Status::OK;
  }

  Status PullFullSnapshot(ServerContext* context, const ::ClusterIdentity* identity,
                          ::ClusterSnapshot* reply) override {
    const std::string& cluster = identity->clusterid();
    if (Status known = known_cluster(context, cluster); !known.ok()) {
      return known;
    }
    v1::ClusterSnapshot view;
    if (Status viewed = clusters_.view_of(context, cluster, view); !viewed.ok()) {
      return viewed;
    }
    *reply = messages::design_snapshot(view);
    return Status::OK;
  }

  Status HealthCheck(ServerContext* context, const ::ClusterIdentity* identity,
                     ::HealthStatus* reply) override {
    const std::string& cluster = identity->clusterid();
    if (Status known = known_cluster(context, cluster); !known.ok()) {
      return known;
    }
    const DesignPosition held = position(cluster);
    v1::HealthProbe heartbeat;
    heartbeat.set_cluster_id(cluster);
    heartbeat.set_epoch(held.epoch);
    heartbeat.set_version(held.version);
    caf::error error;
    auto status = ask<v1::HealthStatus>(system_, clusters_.find(cluster), time_left(context), error,
                                        health_atom_v, heartbeat);
    if (!status) {
      return status_of(error);
    }
    *reply = messages::design_health(*status, static_cast<int64_t>(held.version));
    return Status::OK;
  }

 private:
  static actors::GrpcAgentSettings view_only(const GrpcServiceSettings& settings) {
    actors::GrpcAgentSettings agent = settings.agent;
    agent.view_only = true;
    return agent;
  }

  /// The first update of a stream: the caller may speak for `cluster`, no other stream of it
  /// is open, and it has a proxy (registered now if it is new).
  Status join(const ServerContext* context, const std::string& cluster,
              actors::GrpcAgentProxyActor& proxy) {
    if (Status allowed = clusters_.authorize(context, cluster, "clusterID"); !allowed.ok()) {
      return allowed;
    }
    {
      std::lock_guard<std::mutex> guard(mutex_);
      DesignPosition& held = positions_[cluster];
      if (held.streaming) {
        return Status(StatusCode::ABORTED, "another stream of cluster \"" + cluster +
                                               "\" is open: one stream per cluster at a time");
      }
      held.streaming = true;
    }
    Status joined = clusters_.proxy_for(context, cluster, proxy);
    if (!joined.ok()) {
      end_stream(cluster);
    }
    return joined;
  }

  void end_stream(const std::string& cluster) {
    if (cluster.empty()) {
      return;
    }
    std::lock_guard<std::mutex> guard(mutex_);
    const auto found = positions_.find(cluster);
    if (found != positions_.end() && found->second.epoch == 0) {
      positions_.erase(found);  // never started: nothing to remember
    } else if (found != positions_.end()) {
      found->second.streaming = false;
    }
  }

  DesignPosition position(const std::string& cluster) {
    std::lock_guard<std::mutex> guard(mutex_);
    const auto found = positions_.find(cluster);
    return found == positions_.end() ? DesignPosition{} : found->second;
  }

  /// A warning when the cluster's agent sends healthStatus text that names no state, once for
  /// each new such text (an agent repeats it in every update).
  void note_health(const std::string& cluster, const std::string& text) {
    const auto unknown = messages::unknown_design_health(text);
    std::lock_guard<std::mutex> guard(mutex_);
    DesignPosition& held = positions_[cluster];
    if (unknown && held.unknown_health != text) {
      spdlog::warn("grpc (design): cluster {}: {}", cluster, *unknown);
    }
    held.unknown_health = unknown ? text : std::string();
  }

  void set_position(const std::string& cluster, uint64_t epoch, uint64_t version) {
    std::lock_guard<std::mutex> guard(mutex_);
    DesignPosition& held = positions_[cluster];
    held.epoch = epoch;
    held.version = version;
  }

  Status known_cluster(const ServerContext* context, const std::string& cluster) {
    if (Status allowed = clusters_.authorize(context, cluster, "clusterID"); !allowed.ok()) {
      return allowed;
    }
    return clusters_.find(cluster) ? Status::OK : GrpcClusters::not_found(cluster);
  }

  /// One update of the stream, judged against what the centre holds and passed on.
  StepOutcome apply(const ServerContext* context, const actors::GrpcAgentProxyActor& proxy,
                    ::IncrementalUpdate& update) {
    const std::string cluster = update.clusterid();
    const DesignPosition held = position(cluster);
    const int64_t version = update.version();
    const std::string holds = "the centre holds version " + std::to_string(held.version);
    if (version < 1) {
      return {Status(StatusCode::INVALID_ARGUMENT,
                     "version: Invalid value: " + std::to_string(version) + ": must be at least 1"),
              std::nullopt,
              {}};
    }
    if (version == 1) {
      return start_over(context, proxy, update, held.epoch + 1);
    }
    if (held.epoch == 0) {
      return {Status::OK, ::Ack::GAP,
              "the centre holds nothing of \"" + cluster +
                  "\": start at version 1 with the cluster's whole state"};
    }
    if (static_cast<uint64_t>(version) <= held.version) {
      return {Status::OK, ::Ack::BEHIND,
              "version " + std::to_string(version) + " is not newer: " + holds +
                  "; if the agent restarted, start again at 1 with its whole state"};
    }
    if (static_cast<uint64_t>(version) > held.version + 1) {
      return {Status::OK, ::Ack::GAP,
              "version " + std::to_string(version) + " skips versions: " + holds +
                  "; start again at 1 with the cluster's whole state"};
    }
    return next(context, proxy, update, held.epoch);
  }

  /// Version 1: the cluster's whole state replaces what the centre held, as run `epoch`.
  StepOutcome start_over(const ServerContext* context, const actors::GrpcAgentProxyActor& proxy,
                         ::IncrementalUpdate& update, uint64_t epoch) {
    const std::string cluster = update.clusterid();
    note_health(cluster, update.healthstatus());
    auto snapshot = messages::design_start(update, epoch);
    if (!snapshot) {
      return {Status(StatusCode::INVALID_ARGUMENT, snapshot.error()), std::nullopt, {}};
    }
    caf::error error;
    const auto ack = ask<v1::Ack>(system_, proxy, time_left(context), error, reset_atom_v,
                                  std::move(snapshot.value()));
    return settle(cluster, ack, error, epoch, 1);
  }

  /// Version N > 1 of run `epoch`, the next one the centre expects.
  StepOutcome next(const ServerContext* context, const actors::GrpcAgentProxyActor& proxy,
                   ::IncrementalUpdate& update, uint64_t epoch) {
    const std::string cluster = update.clusterid();
    const auto version = static_cast<uint64_t>(update.version());
    note_health(cluster, update.healthstatus());
    auto converted = messages::design_update(update, epoch);
    if (!converted) {
      return {Status(StatusCode::INVALID_ARGUMENT, converted.error()), std::nullopt, {}};
    }
    caf::error error;
    const auto ack = ask<v1::Ack>(system_, proxy, time_left(context), error, push_atom_v,
                                  std::move(converted.value()));
    return settle(cluster, ack, error, epoch, version);
  }

  /// What the ClusterActor's answer means for the stream.
  StepOutcome settle(const std::string& cluster, const std::optional<v1::Ack>& ack,
                     const caf::error& error, uint64_t epoch, uint64_t version) {
    if (!ack) {
      return {status_of(error, "the centre did not acknowledge: "), std::nullopt, {}};
    }
    switch (ack->status()) {
      case v1::Ack::APPLIED:
        set_position(cluster, epoch, version);
        return {};
      case v1::Ack::REJECTED:
        return {Status(StatusCode::INVALID_ARGUMENT, ack->error()), std::nullopt, {}};
      case v1::Ack::THROTTLED:  // nothing taken: the design document's agent streams again from its
                                // version
        return {Status(StatusCode::RESOURCE_EXHAUSTED, ack->error()), std::nullopt, {}};
      default:  // the centre lost the thread (its view was restarted): it needs the whole state
        set_position(cluster, epoch, ack->version());
        return {Status::OK, ::Ack::GAP,
                "the centre's view of \"" + cluster +
                    "\" was reset: start again at version 1 with the cluster's whole state"};
    }
  }

  void fill_ack(const std::string& cluster, ::Ack::Status status, int64_t applied,
                const std::string& detail, ::Ack& reply) {
    reply.set_clusterid(cluster);
    reply.set_version(static_cast<int64_t>(position(cluster).version));
    reply.set_status(status);
    reply.set_updatesapplied(applied);
    reply.set_detail(detail);
    if (status != ::Ack::APPLIED) {
      spdlog::info("grpc (design): cluster {}: stream ended, {}: {}", cluster,
                   ::Ack::Status_Name(status), detail);
    }
  }

  caf::actor_system& system_;
  runtime::HubActor hub_;
  GrpcClusters clusters_;
  std::shared_ptr<GrpcStreamGuard> streams_;
  std::mutex mutex_;
  std::map<std::string, DesignPosition> positions_;
};

}  // namespace

std::unique_ptr<grpc::Service> make_design_metadata_service(
    caf::actor_system& system, const runtime::HubActor& hub, const GrpcServiceSettings& settings,
    std::shared_ptr<GrpcStreamGuard> streams) {
  return std::make_unique<DesignMetadataService>(system, hub, settings, std::move(streams));
}

}  // namespace unisched::runtime
