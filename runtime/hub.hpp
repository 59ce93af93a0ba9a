// The hub: the centre's entry actor, published by `unisched serve`. Agents register their
// clusters and shards offer to host ClusterActors through it; clients submit requests and read
// the clusters, nodes and requests through it.
//
// Protocol:
//   (register_atom, ClusterRegistration, agent) -> actor: the cluster's ClusterActor (via the
//                                      supervisor); with tokens configured, the token must be
//                                      the cluster's, or the registration is refused and logged.
//                                      The schedulers start placing work there.
//   (shard_atom, ShardRegistration, shard) -> actor: a shard joins (see actors/supervisor) when
//                                      admitted: with shard tokens configured, by its own
//                                      token; with only cluster tokens, never; with neither
//                                      (an open hub), always.
//   (clusters_atom)                    -> ClusterList: every registered cluster's summary, and
//                                         applied profiles whose agent has not registered yet
//   (nodes_atom, cluster_id)           -> ClusterViews: the views, summaries and homes of that
//                                         cluster ("" for every cluster)
//   ManifestSubmission                 -> SubmissionReply: profiles are recorded as declared;
//                                         requests are validated, accepted and scheduled
//   (requests_atom)                    -> RequestList
//   (requests_atom, id, wait)          -> RequestStatus; with wait, once it is decided
#pragma once

#include <caf/fwd.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace unisched::runtime {

class RequestBook;

struct HubSettings {
  std::map<std::string, std::string> tokens;        ///< clusterID -> token; empty: none checked
  std::map<std::string, std::string> shard_tokens;  ///< shardID -> token
  /// The requests, recovered from their journal by the caller (which refuses to start when
  /// that fails); null: a book without a journal.
  std::shared_ptr<RequestBook> book;
};

caf::actor spawn_hub(caf::actor_system& system, const caf::actor& supervisor,
                     const std::vector<caf::actor>& schedulers, const HubSettings& settings);

}  // namespace unisched::runtime
