// The gRPC door of the centre: ClusterMetadataService (messages/unisched.proto) for agents in
// any language, feeding the same hub, supervisor and ClusterActors as the CAF path. Each
// cluster that streams updates is represented inside the centre by a GrpcAgentProxy.
//
// At the edge: the cluster identity rule of the CAF path (a token per cluster, in the
// "x-cluster-token" metadata, when tokens are configured: UNAUTHENTICATED otherwise), every
// message decoded and checked (INVALID_ARGUMENT naming the field), a version gap answered
// with FAILED_PRECONDITION, NOT_FOUND for clusters that never streamed, a bounded message
// size, one update in flight per stream (the agent waits for its Ack: back-pressure, no queue),
// deadlines and cancellation honoured. Standard grpc.health.v1 and server reflection are on.
#pragma once

#include <caf/fwd.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "actors/grpc_agent_proxy.hpp"
#include "runtime/grpc_stream_guard.hpp"
#include "runtime/network.hpp"

namespace unisched::runtime {

struct GrpcServiceSettings {
  std::map<std::string, std::string> tokens;  ///< clusterID -> token; empty: none checked
  int max_message_bytes = 16 << 20;  ///< compressed messages are refused: this bounds memory
  int max_threads = 256;  ///< each open update stream holds one; streams.total leave the rest
  GrpcStreamLimits streams;
  actors::GrpcAgentSettings agent;
  /// How long calls in progress may finish when the server stops; then they are cancelled.
  std::chrono::milliseconds shutdown_grace{2'000};
};

class GrpcMetadataServer {
 public:
  /// Serves at `endpoint` (port 0: any free port) until destroyed or shut down; null with
  /// `error` set when it cannot.
  static std::unique_ptr<GrpcMetadataServer> start(caf::actor_system& system,
                                                   const runtime::HubActor& hub,
                                                   const Endpoint& endpoint, const TlsFiles& tls,
                                                   const GrpcServiceSettings& settings,
                                                   std::string& error);
  virtual ~GrpcMetadataServer() = default;
  virtual uint16_t port() const = 0;
  /// Ends every stream and stops serving.
  virtual void shutdown() = 0;
};

}  // namespace unisched::runtime
