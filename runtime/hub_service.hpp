// The hub as a service (`unisched serve`): the supervisor, the quota ledger, the schedulers and
// the hub, with what must not be lost recovered from the journal, published for agents and
// clients over CAF remote messaging (and gRPC, and a metrics port, when asked) until SIGINT or
// SIGTERM. The verb reads its flags into HubServiceSettings and calls run_hub_service.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "actors/supervisor.hpp"
#include "runtime/grpc_stream_guard.hpp"
#include "runtime/network.hpp"

namespace unisched::runtime {

struct HubServiceSettings {
  Endpoint listen{"127.0.0.1", 4242};
  std::optional<Endpoint> grpc;     ///< the gRPC door for agents in any language
  std::optional<Endpoint> metrics;  ///< the metrics port and status page
  TlsFiles tls;
  std::map<std::string, std::string> cluster_tokens;  ///< clusterID -> token; empty: none checked
  std::map<std::string, std::string> shard_tokens;    ///< shardID -> token
  std::string policy = "balanced";    ///< a preset, made once per scheduler (Registry::preset)
  std::optional<size_t> node_sample;  ///< nullopt: the adaptive rule
  int64_t schedulers = 2;
  size_t grpc_streams_per_address = GrpcStreamLimits{}.per_peer;
  bool queues_require_quota = false;
  actors::SupervisorSettings supervisor;
  std::string journal;  ///< the request journal; empty: requests are forgotten at a stop
  bool journal_skip_damaged = false;  ///< start anyway, dropping damaged records
};

/// Runs the hub until SIGINT or SIGTERM: 0 then; 1 when it cannot start, after printing why.
/// Stop signals must be blocked in every thread (block_stop_signals) before it is called.
int run_hub_service(const HubServiceSettings& settings);

}  // namespace unisched::runtime
