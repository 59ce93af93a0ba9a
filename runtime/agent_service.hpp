// The metadata agent as a service (`unisched agent`): beside its cluster, registered with a hub
// on another host over CAF remote messaging or gRPC, with a metrics port when asked, until
// SIGINT or SIGTERM. The verb reads its flags into AgentServiceSettings, makes the cluster's
// adapter and calls run_agent_service.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "actors/agent_actor.hpp"
#include "runtime/network.hpp"

namespace unisched::adapters {
class ClusterAdapter;
}

namespace unisched::runtime {

struct AgentServiceSettings {
  enum class Transport { Caf, Grpc };

  Endpoint hub;
  TlsFiles tls;
  Transport transport = Transport::Caf;
  std::string token;  ///< the cluster's token, when the hub checks them
  actors::AgentSettings agent;
  std::optional<Endpoint> metrics;
};

/// Runs the agent until SIGINT or SIGTERM: 0 then; 1 when it cannot start or the hub refuses
/// the cluster, after printing why. Its epoch is the start time, later for every start.
int run_agent_service(const std::shared_ptr<adapters::ClusterAdapter>& adapter,
                      const AgentServiceSettings& settings);

}  // namespace unisched::runtime
