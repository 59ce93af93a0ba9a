// The hub: the centre's entry actor, published by `unisched serve`. Agents register their
// clusters and shards offer to host ClusterActors through it; clients submit requests and read
// the clusters, nodes and requests through it.
//
// Its protocol is HubActor (runtime/hub_interface.hpp). With tokens configured, a cluster's
// registration must carry the cluster's token, or it is refused and logged; a shard joins with
// shard tokens configured by its own token, with only cluster tokens never, and with neither
// (an open hub) always. The list of clusters includes applied profiles whose agent has not
// registered yet; submitted profiles are recorded as declared, requests validated, accepted
// and scheduled.
#pragma once

#include <caf/fwd.hpp>

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/hub_interface.hpp"

namespace unisched::runtime {

class ProfileBook;
class QuotaBook;
class RequestBook;

/// How long the hub waits for the supervisor and the quota ledger, and how often it reconciles.
struct HubTimeouts {
  std::chrono::milliseconds cluster_summary{2000};   ///< each cluster's line of `get clusters`
  std::chrono::milliseconds cluster_views{3000};     ///< each part of `get nodes`, `describe`
  std::chrono::milliseconds registration{10000};     ///< an agent's registration
  std::chrono::milliseconds quota_definition{5000};  ///< putting an applied quota in force
  std::chrono::milliseconds quota_list{10000};       ///< `get quotas`
  /// Between two checks of the decided requests no scheduler follows, and how long a cluster
  /// has to answer a check (or a release it brings).
  std::chrono::milliseconds reconcile_interval{1000};
  std::chrono::milliseconds placement_query{3000};
  /// How long the requests undecided at a restart wait for the clusters to come back before
  /// they are decided on the views there are.
  std::chrono::milliseconds recovery{30000};
};

struct HubSettings {
  std::map<std::string, std::string> tokens;        ///< clusterID -> token; empty: none checked
  std::map<std::string, std::string> shard_tokens;  ///< shardID -> token
  /// The requests, recovered from their journal by the caller (which refuses to start when
  /// that fails); null: a book without a journal.
  std::shared_ptr<RequestBook> book;
  /// The quota ledger the schedulers take budget from; null: quotas are refused.
  actors::QuotaActor quota;
  /// The quota definitions, recovered by the caller; null: a book without a journal.
  std::shared_ptr<QuotaBook> quotas;
  /// The applied cluster profiles, recovered by the caller; null: a book without a journal.
  std::shared_ptr<ProfileBook> profiles;
  /// How often every cluster is asked what it holds, to release placements no decision holds
  /// (zero: never).
  std::chrono::milliseconds collect_interval{std::chrono::seconds(10)};
  HubTimeouts timeouts{};
};

runtime::HubActor spawn_hub(caf::actor_system& system, const actors::SupervisorActor& supervisor,
                            const std::vector<actors::SchedulerActor>& schedulers,
                            const HubSettings& settings);

}  // namespace unisched::runtime
