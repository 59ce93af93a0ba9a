// Bench scenarios `ingest` (agents and ClusterActors in one process) and `ingest-remote` over
// CAF (agents in a child process, BASP over loopback TCP). The gRPC transport is ingest_grpc.
#pragma once

#include <cstdint>
#include <string>

#include "tools/bench/parameters.hpp"

namespace unisched::bench {

IngestResult ingest_in_process(const StreamParameters& parameters);

/// Runs the centre here and the agents in `agent_command` + " --agents-for PORT" (this binary).
IngestResult ingest_over_caf(const StreamParameters& parameters, const std::string& agent_command);

/// The child's side of ingest_over_caf: agents connect to the centre at 127.0.0.1:`port`,
/// stream, and print their IngestResult as one JSON line. Returns the exit status.
int run_remote_agents(uint16_t port, const StreamParameters& parameters);

}  // namespace unisched::bench
