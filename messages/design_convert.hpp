// The design document's messages (design_metadata.proto, section 3.4) to and from the unisched.v1
// ones the actors speak. The design document has no epochs: the caller numbers the agent's runs.
// Field paths in refusals are the design document's (nodeDeltas[2].op, healthStatus).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "messages/design_metadata.pb.h"
#include "messages/unisched.pb.h"
#include "model/expected.hpp"

namespace unisched::messages {

/// Version 1 of run `epoch`: the cluster's whole state, as the snapshot that replaces the view;
/// or why it is not one (a delta that is not ADD).
model::Expected<v1::ClusterSnapshot, std::string> design_start(const ::IncrementalUpdate& update,
                                                               uint64_t epoch);

/// Version N > 1 of run `epoch`, applying to N - 1; or why it is malformed.
model::Expected<v1::IncrementalUpdate, std::string> design_update(const ::IncrementalUpdate& update,
                                                                  uint64_t epoch);

/// healthStatus is free text in the design document's IDL: HEALTHY, DEGRADED, UNHEALTHY and UNKNOWN
/// are matched without case; other text is taken as UNKNOWN, never refused. For such text, what to
/// warn of; nullopt for text that names a state.
std::optional<std::string> unknown_design_health(const std::string& text);

/// The centre's view of a cluster, in the design document's terms (`version`: the agent version it
/// reflects).
::ClusterSnapshot design_snapshot(const v1::ClusterSnapshot& view);

/// The cluster as its proxy sees it, with the version the centre holds.
::HealthStatus design_health(const v1::HealthStatus& status, int64_t version);

}  // namespace unisched::messages
