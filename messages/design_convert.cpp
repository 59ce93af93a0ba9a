#include "messages/design_convert.hpp"

#include <absl/strings/match.h>

#include <array>
#include <optional>
#include <utility>

#include "messages/convert.hpp"
#include "model/printable.hpp"
#include "model/view_update.hpp"

namespace unisched::messages {
namespace {

constexpr std::array<std::pair<const char*, v1::HealthState>, 4> kHealth = {{
    {"HEALTHY", v1::HEALTHY},
    {"DEGRADED", v1::DEGRADED},
    {"UNHEALTHY", v1::UNHEALTHY},
    {"UNKNOWN", v1::HEALTH_UNKNOWN},
}};

/// The known state `text` names, matched without case; nullopt for text it does not name.
std::optional<v1::HealthState> known_health(const std::string& text) {
  if (text.empty()) {
    return v1::HEALTH_UNKNOWN;
  }
  for (const auto& [name, state] : kHealth) {
    if (absl::EqualsIgnoreCase(text, name)) {
      return state;
    }
  }
  return std::nullopt;
}

/// The design document's free-text health as a state: text it does not name says nothing (unknown).
/// The design document's IDL makes it a string, so agents written from it send what they like
/// ("Healthy").
v1::HealthState health_of(const std::string& text) {
  return known_health(text).value_or(v1::HEALTH_UNKNOWN);
}

/// `from` read as `to`: the design document's node and resource messages have the field numbers and
/// types of unisched.v1's (a test checks), so their bytes mean the same.
void same_bytes(const google::protobuf::Message& from, google::protobuf::Message& to) {
  to.ParseFromString(from.SerializeAsString());
}

std::string too_many(const ::IncrementalUpdate& update) {
  return static_cast<size_t>(update.nodedeltas_size()) > model::kMaxNodeChangesPerUpdate
             ? "nodeDeltas: " + too_many_node_deltas(update.nodedeltas_size())
             : std::string();
}

}  // namespace

model::Expected<v1::ClusterSnapshot, std::string> design_start(const ::IncrementalUpdate& update,
                                                               uint64_t epoch) {
  if (std::string refusal = too_many(update); !refusal.empty()) {
    return refusal;
  }
  v1::ClusterSnapshot snapshot;
  snapshot.set_cluster_id(update.clusterid());
  snapshot.set_epoch(epoch);
  snapshot.set_version(1);
  for (int i = 0; i < update.nodedeltas_size(); ++i) {
    const ::NodeDelta& delta = update.nodedeltas(i);
    if (delta.op() != ::NodeDelta::ADD) {
      return "nodeDeltas[" + std::to_string(i) + "].op: Unsupported value: \"" +
             ::NodeDelta::Op_Name(delta.op()) +
             "\": version 1 starts the cluster over with its whole state: every delta is ADD";
    }
    same_bytes(delta.node(), *snapshot.add_nodes());
  }
  if (update.resourcedelta().has_resources()) {
    same_bytes(update.resourcedelta().resources(), *snapshot.mutable_resources());
  }
  return snapshot;
}

model::Expected<v1::IncrementalUpdate, std::string> design_update(const ::IncrementalUpdate& update,
                                                                  uint64_t epoch) {
  if (std::string refusal = too_many(update); !refusal.empty()) {
    return refusal;
  }
  const v1::HealthState health = health_of(update.healthstatus());
  const auto version = static_cast<uint64_t>(update.version());
  v1::IncrementalUpdate out;
  out.set_cluster_id(update.clusterid());
  out.set_epoch(epoch);
  out.set_base_version(version - 1);
  out.set_version(version);
  for (const ::NodeDelta& delta : update.nodedeltas()) {
    same_bytes(delta, *out.add_node_deltas());
  }
  same_bytes(update.resourcedelta(), *out.mutable_resource_delta());
  out.mutable_health_status()->set_cluster_id(update.clusterid());
  out.mutable_health_status()->set_state(health);
  out.mutable_health_status()->set_epoch(epoch);
  out.mutable_health_status()->set_version(version);
  return out;
}

std::optional<std::string> unknown_design_health(const std::string& text) {
  if (known_health(text)) {
    return std::nullopt;
  }
  return "healthStatus " + model::quoted_brief(text) +
         " is none of \"HEALTHY\", \"DEGRADED\", \"UNHEALTHY\", \"UNKNOWN\" (in any case): "
         "taken as UNKNOWN";
}

::ClusterSnapshot design_snapshot(const v1::ClusterSnapshot& view) {
  ::ClusterSnapshot out;
  out.set_clusterid(view.cluster_id());
  out.set_version(static_cast<int64_t>(view.agent_version()));
  for (const v1::NodeState& node : view.nodes()) {
    same_bytes(node, *out.add_nodes());
  }
  same_bytes(view.resources(), *out.mutable_resources());
  return out;
}

::HealthStatus design_health(const v1::HealthStatus& status, int64_t version) {
  ::HealthStatus out;
  out.set_clusterid(status.cluster_id());
  out.set_status(status.state() == v1::HEALTH_UNKNOWN ? "UNKNOWN"
                                                      : v1::HealthState_Name(status.state()));
  out.set_version(version);
  out.set_restartneeded(status.snapshot_wanted());
  out.set_viewonly(true);
  out.set_detail(status.snapshot_wanted()
                     ? "the centre needs the whole state: start again at version 1"
                     : status.detail());
  return out;
}

}  // namespace unisched::messages
