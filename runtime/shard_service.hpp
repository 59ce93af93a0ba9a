// A shard as a service (`unisched shard`): hosts the ClusterActors of a share of the clusters,
// published for their agents, joined to the hub (again after the hub comes back), with a
// metrics port when asked, until SIGINT or SIGTERM. The verb reads its flags into
// ShardServiceSettings and calls run_shard_service.
#pragma once

#include <optional>
#include <string>

#include "actors/cluster_actor.hpp"
#include "runtime/network.hpp"

namespace unisched::runtime {

struct ShardServiceSettings {
  Endpoint hub;
  Endpoint listen{"127.0.0.1", 0};
  TlsFiles tls;
  std::string id;         ///< a DNS-1123 label; empty: "HOST-PORT" (or "shard-PORT")
  std::string token;      ///< the shard's token, when the hub checks them
  std::string advertise;  ///< where agents reach it; empty: the listening endpoint
  actors::ClusterActorSettings cluster;
  std::optional<Endpoint> metrics;
};

/// Runs the shard until SIGINT or SIGTERM: 0 then; 1 when it cannot start or the hub refuses
/// it, after printing why.
int run_shard_service(const ShardServiceSettings& settings);

}  // namespace unisched::runtime
