// ClusterMetadataService as the design document prints it (messages/design_metadata.proto, from
// ../shared/seed/ section 3.4), served beside the richer unisched.v1 service on the same gRPC
// port and the same actors: an agent team that writes a client from the design document's text can
// join.
//
// What the design document leaves open is settled here:
// - Versions without epochs: version 1 starts the cluster over with its whole state (ADD deltas
//   only), replacing what the centre held; version N > 1 applies to N - 1. The first update that
//   skips versions (GAP) or is not newer than what the centre holds (BEHIND: a restart or a
//   resend) ends the stream with one Ack saying so and the version the centre holds; what came
//   before it was applied. The agent then starts again at 1 (or, after a resend, goes on).
// - Identity: the clusters' tokens, from "authorization: Bearer TOKEN" or "x-cluster-token".
// - Placements: the design document's push is client streaming with one Ack, so the centre cannot
// send an
//   agent of this door any order. Such a cluster is a view only: `get clusters` marks it, and
//   the view-only filter keeps every placement off it, with that reason.
// - Errors: a malformed update ends the call with INVALID_ARGUMENT naming the field, a wrong or
//   missing token with UNAUTHENTICATED, an unknown cluster (PullFullSnapshot, HealthCheck) with
//   NOT_FOUND, a second open stream of one cluster with ABORTED.
#pragma once

#include <grpcpp/grpcpp.h>
#include <caf/fwd.hpp>

#include <memory>

#include "runtime/grpc_service.hpp"

namespace unisched::runtime {

/// `streams`: the limits its update streams share with the other service of the server.
std::unique_ptr<grpc::Service> make_design_metadata_service(
    caf::actor_system& system, const runtime::HubActor& hub, const GrpcServiceSettings& settings,
    std::shared_ptr<GrpcStreamGuard> streams);

}  // namespace unisched::runtime
