// The seed's messages (seed_metadata.proto, section 3.4) to and from the unisched.v1 ones the
// actors speak. The seed has no epochs: the caller numbers the agent's runs. Field paths in
// refusals are the seed's (nodeDeltas[2].op, healthStatus).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "messages/seed_metadata.pb.h"
#include "messages/unisched.pb.h"
#include "model/expected.hpp"

namespace unisched::messages {

/// Version 1 of run `epoch`: the cluster's whole state, as the snapshot that replaces the view;
/// or why it is not one (a delta that is not ADD).
model::Expected<v1::ClusterSnapshot, std::string> seed_start(const ::IncrementalUpdate& update,
                                                             uint64_t epoch);

/// Version N > 1 of run `epoch`, applying to N - 1; or why it is malformed.
model::Expected<v1::IncrementalUpdate, std::string> seed_update(const ::IncrementalUpdate& update,
                                                                uint64_t epoch);

/// healthStatus is free text in the seed's IDL: HEALTHY, DEGRADED, UNHEALTHY and UNKNOWN are
/// matched without case; other text is taken as UNKNOWN, never refused. For such text, what to
/// warn of; nullopt for text that names a state.
std::optional<std::string> unknown_seed_health(const std::string& text);

/// The centre's view of a cluster, in the seed's terms (`version`: the agent version it
/// reflects).
::ClusterSnapshot seed_snapshot(const v1::ClusterSnapshot& view);

/// The cluster as its proxy sees it, with the version the centre holds.
::HealthStatus seed_health(const v1::HealthStatus& status, int64_t version);

}  // namespace unisched::messages
