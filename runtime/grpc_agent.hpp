// The metadata agent over gRPC (`unisched agent --transport grpc`): the same agent logic
// (cores/agent_core) as the CAF agent, speaking ClusterMetadataService as any non-C++ agent
// would. It dials out only: updates go up one stream, one in flight (each waits for its Ack);
// placement orders come back on the Acks; a gap ends the stream and is answered with a full
// snapshot; heartbeats tell the centre it is alive and whether a snapshot is wanted. A lost
// connection is retried with backoff (200 ms doubling to 5 s).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "messages/unisched.pb.h"
#include "runtime/network.hpp"

namespace unisched::adapters {
class ClusterAdapter;
}

namespace unisched::runtime {

struct GrpcAgentOptions {
  Endpoint centre;
  TlsFiles tls;
  std::string token;
  std::string region;
  std::string zone;
  std::string machine_type;
  bool view_only = false;  ///< the adapter carries out no placements
  std::chrono::milliseconds observe_interval{100};
  std::chrono::milliseconds push_interval{1000};
  std::chrono::milliseconds heartbeat_deadline{5'000};       ///< a HealthCheck call's
  std::chrono::milliseconds snapshot_part_deadline{10'000};  ///< each PushFullSnapshot call's
  /// Told the agent's summary (online: while its update stream is open) once per push
  /// interval, from the agent's thread; for its metrics.
  std::function<void(const v1::AgentSummary&)> publish_summary;
};

/// Runs until `stop()` is true; 0 on a clean stop, 1 when the centre refuses the cluster
/// (wrong token, a second agent for the cluster), after printing why.
int run_grpc_agent(std::shared_ptr<adapters::ClusterAdapter> adapter, uint64_t epoch,
                   const GrpcAgentOptions& options, const std::function<bool()>& stop);

}  // namespace unisched::runtime
