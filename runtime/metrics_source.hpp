// What `serve --metrics` reads on each request: the hub's clusters and each scheduler's summary
// (and for the status page the requests and quotas), asked of the actors from the HTTP
// server's thread.
#pragma once

#include <caf/fwd.hpp>

#include <chrono>
#include <optional>
#include <vector>

#include "actors/agent_actor.hpp"
#include "actors/shard_interface.hpp"
#include "runtime/hub_interface.hpp"
#include "runtime/hub_metrics.hpp"
#include "runtime/status_json.hpp"

namespace unisched::runtime {

/// How long a metrics or status page waits for each actor's answer: well inside Prometheus'
/// default scrape timeout (10 s), so a stuck actor costs one missing source, not the scrape.
inline constexpr std::chrono::seconds kScrapePatience{2};

/// Each actor gets `patience` to answer; one that does not is counted in missing_sources.
HubMetricsInput collect_hub_metrics(caf::actor_system& system, const runtime::HubActor& hub,
                                    const std::vector<actors::SchedulerActor>& schedulers,
                                    std::chrono::milliseconds patience);

/// A shard's hosted clusters, through its ShardActor; nullopt when it did not answer.
std::optional<v1::ClusterList> collect_shard_clusters(caf::actor_system& system,
                                                      const actors::ShardActor& shard,
                                                      std::chrono::milliseconds patience);

/// An agent's summary; nullopt when it did not answer (cut off, or busy past `patience`).
std::optional<v1::AgentSummary> collect_agent_summary(caf::actor_system& system,
                                                      const actors::LocalAgentActor& agent,
                                                      std::chrono::milliseconds patience);

/// The metrics' input, the hub's requests and its quotas.
StatusInput collect_status(caf::actor_system& system, const runtime::HubActor& hub,
                           const std::vector<actors::SchedulerActor>& schedulers,
                           std::chrono::milliseconds patience);

}  // namespace unisched::runtime
