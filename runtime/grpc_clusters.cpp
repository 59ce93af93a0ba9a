#include "runtime/grpc_clusters.hpp"

#include <spdlog/spdlog.h>
#include <caf/send.hpp>

#include <cctype>

#include "messages/caf_types.hpp"
#include "messages/errors.hpp"
#include "model/names.hpp"
#include "model/printable.hpp"
#include "runtime/grpc_calls.hpp"
#include "runtime/tokens.hpp"

namespace unisched::runtime {

using grpc::Status;
using grpc::StatusCode;
using namespace unisched::atoms;

std::string presented_token(const grpc::ServerContext* context) {
  const std::string authorization = call_metadata(context, "authorization");
  constexpr size_t kScheme = 7;  // "Bearer "
  if (authorization.size() > kScheme && authorization[kScheme - 1] == ' ') {
    std::string scheme = authorization.substr(0, kScheme - 1);
    for (char& c : scheme) {
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    if (scheme == "bearer") {
      return authorization.substr(kScheme);
    }
  }
  return call_metadata(context, "x-cluster-token");
}

GrpcClusters::GrpcClusters(caf::actor_system& system, runtime::HubActor hub,
                           std::map<std::string, std::string> tokens,
                           actors::GrpcAgentSettings agent)
    : system_(system), hub_(std::move(hub)), tokens_(std::move(tokens)), agent_(agent) {}

GrpcClusters::~GrpcClusters() {
  std::lock_guard<std::mutex> guard(mutex_);
  for (auto& [id, proxy] : proxies_) {
    caf::anon_send_exit(proxy, caf::exit_reason::user_shutdown);
  }
}

Status GrpcClusters::authorize(const grpc::ServerContext* context, const std::string& cluster,
                               const std::string& field) const {
  if (cluster.empty()) {
    return Status(StatusCode::INVALID_ARGUMENT, field + ": Required value");
  }
  if (const std::string reason = model::check_cluster_id(cluster); !reason.empty()) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  field + ": Invalid value: " + model::quoted_brief(cluster) + ": " + reason);
  }
  if (tokens_.empty()) {
    return Status::OK;
  }
  const std::string token = presented_token(context);
  std::string why = token_refusal(tokens_, "cluster", cluster, token);
  if (why.empty()) {
    return Status::OK;
  }
  if (token.empty() && tokens_.count(cluster) > 0) {
    why =
        "authorization: Required value: send \"authorization: Bearer TOKEN\" (or x-cluster-token)";
  }
  spdlog::warn("grpc: {} refused: {}", context->peer(), why);
  return Status(StatusCode::UNAUTHENTICATED, why);
}

Status GrpcClusters::not_found(const std::string& cluster) {
  return Status(StatusCode::NOT_FOUND,
                "cluster \"" + cluster + "\" has not streamed updates to this service");
}

Status GrpcClusters::view_of(const grpc::ServerContext* context, const std::string& cluster,
                             v1::ClusterSnapshot& out) {
  caf::error error;
  auto views =
      ask<v1::ClusterViews>(system_, hub_, time_left(context), error, nodes_atom_v, cluster, false);
  if (!views || views->clusters_size() == 0) {
    return Status(StatusCode::UNAVAILABLE, "the centre has no view of \"" + cluster +
                                               "\" right now" +
                                               (error ? ": " + messages::error_detail(error) : ""));
  }
  out = std::move(*views->mutable_clusters(0));
  return Status::OK;
}

Status GrpcClusters::view_part(const grpc::ServerContext* context,
                               const v1::SnapshotRequest& request, v1::ClusterSnapshot& out) {
  const std::string& cluster = request.cluster().cluster_id();
  if (request.part() > 0) {
    std::deque<std::shared_ptr<const messages::SnapshotParts>> kept;
    {
      std::lock_guard<std::mutex> guard(mutex_);
      if (const auto found = pulls_.find(cluster); found != pulls_.end()) {
        kept = found->second;
      }
    }
    for (const auto& pull : kept) {
      if (auto part = pull->part(request)) {
        out = std::move(part.value());
        return Status::OK;
      }
    }
    return Status(StatusCode::ABORTED, "part " + std::to_string(request.part()) +
                                           " of the view at epoch " +
                                           std::to_string(request.epoch()) + ", version " +
                                           std::to_string(request.version()) +
                                           " is no longer kept: pull again from part 0");
  }
  v1::ClusterSnapshot whole;
  if (Status viewed = view_of(context, cluster, whole); !viewed.ok()) {
    return viewed;
  }
  auto pull = std::make_shared<messages::SnapshotParts>();
  out = pull->start(std::move(whole));
  if (out.parts() > 1) {
    std::lock_guard<std::mutex> guard(mutex_);
    auto& kept = pulls_[cluster];
    kept.push_front(std::move(pull));
    if (kept.size() > kPullsKeptPerCluster) {
      kept.pop_back();
    }
  }
  return Status::OK;
}

actors::GrpcAgentProxyActor GrpcClusters::find(const std::string& cluster) {
  std::lock_guard<std::mutex> guard(mutex_);
  const auto found = proxies_.find(cluster);
  return found == proxies_.end() ? actors::GrpcAgentProxyActor() : found->second;
}

Status GrpcClusters::proxy_for(const grpc::ServerContext* context, const std::string& cluster,
                               actors::GrpcAgentProxyActor& out) {
  {
    std::lock_guard<std::mutex> guard(mutex_);
    if (const auto found = proxies_.find(cluster); found != proxies_.end()) {
      out = found->second;
      return Status::OK;
    }
    if (!registering_.insert(cluster).second) {
      return Status(StatusCode::UNAVAILABLE,
                    "another stream is registering cluster \"" + cluster + "\"; try again");
    }
  }
  const Status registered = register_cluster(context, cluster, out);
  std::lock_guard<std::mutex> guard(mutex_);
  registering_.erase(cluster);
  if (registered.ok()) {
    proxies_[cluster] = out;
  }
  return registered;
}

Status GrpcClusters::register_cluster(const grpc::ServerContext* context,
                                      const std::string& cluster,
                                      actors::GrpcAgentProxyActor& out) {
  v1::ClusterRegistration registration;
  registration.mutable_identity()->set_cluster_id(cluster);
  registration.mutable_identity()->set_token(presented_token(context));
  registration.set_region(call_metadata(context, "x-cluster-region"));
  registration.set_zone(call_metadata(context, "x-cluster-zone"));
  registration.set_view_only(agent_.view_only ||
                             call_metadata(context, "x-cluster-view-only") == "true");
  const std::string machine_type = call_metadata(context, "x-cluster-machine-type");
  if (!machine_type.empty() && machine_type != "VirtualMachine" && machine_type != "BareMetal") {
    return Status(
        StatusCode::INVALID_ARGUMENT,
        "x-cluster-machine-type: Unsupported value: " + model::quoted_brief(machine_type) +
            ": supported values: \"BareMetal\", \"VirtualMachine\"");
  }
  registration.set_machine_type(machine_type.empty() ? "VirtualMachine" : machine_type);
  const auto proxy = actors::spawn_grpc_agent_proxy(system_, cluster, agent_);
  caf::error error;
  const auto cluster_actor =
      ask<actors::ClusterActor>(system_, hub_, time_left(context), error, register_atom_v,
                                registration, actors::AgentActor{proxy});
  if (!cluster_actor) {
    caf::anon_send_exit(proxy, caf::exit_reason::user_shutdown);
    spdlog::warn("grpc: cluster {} from {} refused: {}", cluster, context->peer(),
                 messages::error_detail(error));
    return status_of(error);
  }
  caf::anon_send(proxy, bind_atom_v, actors::ClusterIngestActor{*cluster_actor}, std::string());
  spdlog::info("grpc: cluster {} joined from {}{}", cluster, context->peer(),
               agent_.view_only ? " through the seed's service (a view only)" : "");
  out = proxy;
  return Status::OK;
}

}  // namespace unisched::runtime
