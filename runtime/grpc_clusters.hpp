// The clusters that joined through one gRPC service: who may speak for a cluster (its token, in
// "authorization: Bearer TOKEN" as gRPC clients send credentials, or in "x-cluster-token"), and
// the GrpcAgentProxy that stands in for each inside the centre, registered with the hub on the
// cluster's first update.
#pragma once

#include <grpcpp/grpcpp.h>
#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "actors/grpc_agent_proxy.hpp"
#include "messages/snapshot_parts.hpp"
#include "messages/unisched.pb.h"
#include "runtime/hub_interface.hpp"

namespace unisched::runtime {

/// The token a call presents: "authorization: Bearer TOKEN" (the scheme in any case), else
/// "x-cluster-token"; empty when neither is there.
std::string presented_token(const grpc::ServerContext* context);

class GrpcClusters {
 public:
  /// `tokens`: clusterID -> token, empty when none are checked. `agent.view_only` marks every
  /// cluster of this service as one that takes no placements.
  GrpcClusters(caf::actor_system& system, runtime::HubActor hub,
               std::map<std::string, std::string> tokens, actors::GrpcAgentSettings agent);
  ~GrpcClusters();
  GrpcClusters(const GrpcClusters&) = delete;
  GrpcClusters& operator=(const GrpcClusters&) = delete;

  /// OK when the call may speak for `cluster`; else INVALID_ARGUMENT (a missing or malformed
  /// ID, named as `field`) or UNAUTHENTICATED.
  grpc::Status authorize(const grpc::ServerContext* context, const std::string& cluster,
                         const std::string& field) const;

  /// The cluster's proxy; null when it never joined through this service.
  actors::GrpcAgentProxyActor find(const std::string& cluster);

  /// The cluster's proxy; a cluster new to this service is registered with the hub first. The
  /// lock guards the maps only: it is not held while the hub answers.
  grpc::Status proxy_for(const grpc::ServerContext* context, const std::string& cluster,
                         actors::GrpcAgentProxyActor& out);

  static grpc::Status not_found(const std::string& cluster);

  /// The centre's view of `cluster` into `out`; UNAVAILABLE when the centre has none now.
  grpc::Status view_of(const grpc::ServerContext* context, const std::string& cluster,
                       v1::ClusterSnapshot& out);

  /// Part `request.part()` of the centre's view of the cluster the request names. A view that
  /// fits in one message comes whole (parts 0). A larger one is split: part 0 answers a new pull
  /// and keeps the other parts, which later requests name by part, epoch and version; ABORTED
  /// when those are no longer kept (the client pulls again from part 0).
  grpc::Status view_part(const grpc::ServerContext* context, const v1::SnapshotRequest& request,
                         v1::ClusterSnapshot& out);

 private:
  grpc::Status register_cluster(const grpc::ServerContext* context, const std::string& cluster,
                                actors::GrpcAgentProxyActor& out);

  caf::actor_system& system_;
  runtime::HubActor hub_;
  std::map<std::string, std::string> tokens_;
  actors::GrpcAgentSettings agent_;
  std::mutex mutex_;
  std::map<std::string, actors::GrpcAgentProxyActor> proxies_;
  std::set<std::string> registering_;  // clusters whose registration is under way
  /// The latest pulls split per cluster, newest first: two, so that two clients pulling while
  /// the view changes do not keep dropping each other's parts.
  static constexpr size_t kPullsKeptPerCluster = 2;
  std::map<std::string, std::deque<std::shared_ptr<const messages::SnapshotParts>>> pulls_;
};

}  // namespace unisched::runtime
