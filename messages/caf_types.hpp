// Every atom and message type that unisched's actors exchange, declared once (CAF type-ID
// block), and the one inspect() that lets any protobuf message cross a CAF link: it serialises
// the message whole, so CAF and gRPC carry the same bytes of the same schema.
#pragma once

#include <caf/error.hpp>
#include <caf/meta/load_callback.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/sec.hpp>
#include <caf/type_id.hpp>

#include <string>
#include <type_traits>

#include <caf/allowed_unsafe_message_type.hpp>

#include "messages/agent_snapshot.hpp"
#include "messages/agent_update.hpp"
#include "messages/unisched.pb.h"
#include "messages/view_feed.hpp"
#include "model/scheduling_request.hpp"

namespace unisched::v1 {

/// CAF 0.17 inspector form: serialise a protobuf message to bytes, or parse it back.
template <class Inspector, class Message>
typename std::enable_if<std::is_base_of<google::protobuf::MessageLite, Message>::value,
                        typename Inspector::result_type>::type
inspect(Inspector& f, Message& x) {
  static const std::string name = x.GetTypeName();
  std::string bytes;
  if constexpr (Inspector::reads_state) {
    x.SerializeToString(&bytes);
    return f(caf::meta::type_name(name.c_str()), bytes);
  } else {
    auto parse = caf::meta::load_callback([&]() -> caf::error {
      return x.ParseFromString(bytes) ? caf::error{} : caf::make_error(caf::sec::invalid_argument);
    });
    return f(caf::meta::type_name(name.c_str()), bytes, parse);
  }
}

}  // namespace unisched::v1

namespace unisched::messages {

/// A view feed entry crosses a link as its IncrementalUpdate (or, whole, ClusterSnapshot)
/// bytes; in one process CAF passes the shared entry itself and never calls this.
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ViewFeed& x) {
  std::string bytes;
  bool whole = false;
  if constexpr (Inspector::reads_state) {
    whole = x.revision && x.revision->whole;
    bytes = encode_feed(x);
    return f(caf::meta::type_name("unisched.ViewFeed"), whole, bytes);
  } else {
    auto parse = caf::meta::load_callback([&]() -> caf::error {
      return decode_feed(bytes, whole, x).empty() ? caf::error{}
                                                  : caf::make_error(caf::sec::invalid_argument);
    });
    return f(caf::meta::type_name("unisched.ViewFeed"), whole, bytes, parse);
  }
}

/// What an agent's update and snapshot carry across a link: the reason the value is malformed
/// if it is, and its bytes in the schema; in one process CAF passes the shared value itself and
/// never calls this.
template <class Inspector, class Value>
typename Inspector::result_type inspect_agent_message(Inspector& f, Value& x, const char* name,
                                                      std::string (*encode)(const Value&),
                                                      bool (*decode)(const std::string&,
                                                                     std::string, Value&)) {
  std::string bytes;
  std::string problem;
  if constexpr (Inspector::reads_state) {
    bytes = encode(x);
    return f(caf::meta::type_name(name), x.problem, bytes);
  } else {
    auto parse = caf::meta::load_callback([&]() -> caf::error {
      return decode(bytes, std::move(problem), x) ? caf::error{}
                                                  : caf::make_error(caf::sec::invalid_argument);
    });
    return f(caf::meta::type_name(name), problem, bytes, parse);
  }
}

/// An agent update crosses a link as its IncrementalUpdate bytes.
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, AgentUpdate& x) {
  return inspect_agent_message(f, x, "unisched.AgentUpdate", encode_update, decode_update);
}

/// An agent snapshot (or part) crosses a link as its ClusterSnapshot bytes.
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, AgentSnapshot& x) {
  return inspect_agent_message(f, x, "unisched.AgentSnapshot", encode_snapshot, decode_snapshot);
}

}  // namespace unisched::messages

CAF_BEGIN_TYPE_ID_BLOCK(unisched, caf::first_custom_type_id)

CAF_ADD_TYPE_ID(unisched, (unisched::v1::IncrementalUpdate))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::Ack))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::SnapshotRequest))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::ClusterSnapshot))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::HealthProbe))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::HealthStatus))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::ClusterSummary))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::CommitRequest))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::CommitReply))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::PlacementOrder))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::ReleaseOrder))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::RefusedPlacement))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::SchedulingDecision))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::SchedulerSummary))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::SettledPlacements))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::WorkloadReport))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::ClusterList))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::ClusterRegistration))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::ShardRegistration))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::ClusterHome))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::ManifestSubmission))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::RequestStatus))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::SubmissionReply))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::RequestList))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::ClusterViews))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::QuotaTakeRequest))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::QuotaTakeReply))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::QuotaRelease))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::QuotaAdmission))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::FinishedPlacements))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::QuotaDefinition))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::QuotaStatus))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::QuotaList))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::QuotaRestore))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::QuotaLeaseUse))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::QuotaLeaseRevoke))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::GivenUpRequests))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::PlacementQuery))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::PlacementReport))
CAF_ADD_TYPE_ID(unisched, (unisched::v1::AgentSummary))
CAF_ADD_TYPE_ID(unisched, (unisched::messages::ViewFeed))
CAF_ADD_TYPE_ID(unisched, (unisched::messages::AgentUpdate))
CAF_ADD_TYPE_ID(unisched, (unisched::messages::AgentSnapshot))
// Requests reach schedulers in one process as model types (no wire form yet).
CAF_ADD_TYPE_ID(unisched, (unisched::model::SchedulingRequestSpec))

// Timers of the agent, the supervisor, the ClusterActor (resend) and the hub (reconcile).
CAF_ADD_ATOM(unisched, unisched::atoms, observe_atom, "observe")
CAF_ADD_ATOM(unisched, unisched::atoms, push_atom, "push")
CAF_ADD_ATOM(unisched, unisched::atoms, probe_atom, "probe")
CAF_ADD_ATOM(unisched, unisched::atoms, retry_atom, "retry")
CAF_ADD_ATOM(unisched, unisched::atoms, resend_atom, "resend")
CAF_ADD_ATOM(unisched, unisched::atoms, reconcile_atom, "reconcile")
// Queries and commands.
CAF_ADD_ATOM(unisched, unisched::atoms, view_atom, "view")
CAF_ADD_ATOM(unisched, unisched::atoms, feed_atom, "feed")
CAF_ADD_ATOM(unisched, unisched::atoms, summary_atom, "summary")
CAF_ADD_ATOM(unisched, unisched::atoms, subscribe_atom, "subscribe")
CAF_ADD_ATOM(unisched, unisched::atoms, health_atom, "health")
CAF_ADD_ATOM(unisched, unisched::atoms, resync_atom, "resync")
CAF_ADD_ATOM(unisched, unisched::atoms, position_atom, "position")
CAF_ADD_ATOM(unisched, unisched::atoms, bind_atom, "bind")
CAF_ADD_ATOM(unisched, unisched::atoms, register_atom, "register")
CAF_ADD_ATOM(unisched, unisched::atoms, clusters_atom, "clusters")
CAF_ADD_ATOM(unisched, unisched::atoms, online_atom, "online")
CAF_ADD_ATOM(unisched, unisched::atoms, submit_atom, "submit")
CAF_ADD_ATOM(unisched, unisched::atoms, process_atom, "process")
CAF_ADD_ATOM(unisched, unisched::atoms, shard_atom, "shard")
CAF_ADD_ATOM(unisched, unisched::atoms, spawn_atom, "spawn")
CAF_ADD_ATOM(unisched, unisched::atoms, requests_atom, "requests")
CAF_ADD_ATOM(unisched, unisched::atoms, nodes_atom, "nodes")
CAF_ADD_ATOM(unisched, unisched::atoms, join_atom, "join")
CAF_ADD_ATOM(unisched, unisched::atoms, reset_atom, "reset")
CAF_ADD_ATOM(unisched, unisched::atoms, quotas_atom, "quotas")

CAF_END_TYPE_ID_BLOCK(unisched)

// Local only: a SchedulingRequestSpec is passed between actors of one process, never serialised.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(unisched::model::SchedulingRequestSpec)

namespace caf {
class actor_system_config;
}

namespace unisched::messages {

/// Announces every message type to an actor system (needed for remote links).
void register_message_types(caf::actor_system_config& config);

}  // namespace unisched::messages
