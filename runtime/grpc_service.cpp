#include "runtime/grpc_service.hpp"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/resource_quota.h>
#include <spdlog/spdlog.h>
#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>

#include <algorithm>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>

#include "messages/caf_types.hpp"
#include "messages/convert.hpp"
#include "messages/errors.hpp"
#include "messages/unisched.grpc.pb.h"
#include "model/names.hpp"
#include "model/printable.hpp"
#include "runtime/tokens.hpp"

namespace unisched::runtime {
namespace {

using namespace unisched::atoms;
using grpc::ServerContext;
using grpc::Status;
using grpc::StatusCode;

const std::chrono::seconds kCentreTimeout{10};

std::string metadata(const ServerContext* context, const std::string& key) {
  const auto& client = context->client_metadata();
  const auto found = client.find(key);
  return found == client.end() ? std::string()
                               : std::string(found->second.data(), found->second.size());
}

/// How long the centre may take for a call: at most kCentreTimeout, and never past the
/// caller's deadline.
std::chrono::milliseconds time_left(const ServerContext* context) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      context->deadline() - std::chrono::system_clock::now());
  return std::max(std::chrono::milliseconds(1),
                  std::min<std::chrono::milliseconds>(left, kCentreTimeout));
}

/// Asks `target` from a thread outside the actor system; the reply, or the error in `error`.
template <class Reply, class... Ts>
std::optional<Reply> ask(caf::actor_system& system, const caf::actor& target,
                         std::chrono::milliseconds timeout, caf::error& error, Ts&&... xs) {
  caf::scoped_actor self{system};
  std::optional<Reply> reply;
  self->request(target, timeout, std::forward<Ts>(xs)...)
      .receive([&](Reply& answer) { reply = std::move(answer); },
               [&](caf::error& failure) { error = std::move(failure); });
  return reply;
}

/// The gRPC status for a refusal from the centre: each protocol error code maps to one status;
/// anything else (a timeout, a lost actor) is UNAVAILABLE, since trying again may work.
Status status_of(const caf::error& error, const std::string& context = {}) {
  const std::string text = context + messages::error_detail(error);
  switch (messages::error_code(error).value_or(messages::Error::Unavailable)) {
    case messages::Error::InvalidArgument:
      return Status(StatusCode::INVALID_ARGUMENT, text);
    case messages::Error::Unauthenticated:
      return Status(StatusCode::UNAUTHENTICATED, text);
    case messages::Error::AlreadyRegistered:
      return Status(StatusCode::ALREADY_EXISTS, text);
    case messages::Error::NotFound:
      return Status(StatusCode::NOT_FOUND, text);
    case messages::Error::Unavailable:
      return Status(StatusCode::UNAVAILABLE, text);
  }
  return Status(StatusCode::UNAVAILABLE, text);
}

class MetadataService final : public v1::ClusterMetadataService::Service {
 public:
  MetadataService(caf::actor_system& system, caf::actor hub, GrpcServiceSettings settings)
      : system_(system), hub_(std::move(hub)), settings_(std::move(settings)) {}

  ~MetadataService() override {
    std::lock_guard<std::mutex> guard(mutex_);
    for (auto& [id, proxy] : proxies_) {
      caf::anon_send_exit(proxy, caf::exit_reason::user_shutdown);
    }
  }

  Status PushIncrementalUpdates(
      ServerContext* context,
      grpc::ServerReaderWriter<v1::Ack, v1::IncrementalUpdate>* stream) override {
    v1::IncrementalUpdate update;
    std::string cluster;
    caf::actor proxy;
    while (stream->Read(&update)) {
      if (context->IsCancelled()) {
        return Status(StatusCode::CANCELLED, "the agent cancelled the stream");
      }
      if (cluster.empty()) {
        if (Status allowed = authorize(context, update.cluster_id()); !allowed.ok()) {
          return allowed;
        }
        cluster = update.cluster_id();
        if (Status joined = proxy_for(context, cluster, proxy); !joined.ok()) {
          return joined;
        }
      } else if (update.cluster_id() != cluster) {
        return Status(StatusCode::INVALID_ARGUMENT,
                      "cluster_id: one stream carries one cluster's updates: got " +
                          model::quoted_brief(update.cluster_id()) + " after \"" + cluster + "\"");
      }
      if (static_cast<size_t>(update.node_deltas_size()) > model::kMaxNodeChangesPerUpdate) {
        // Refused before it is copied into the centre: it would cost memory and time there.
        return Status(StatusCode::INVALID_ARGUMENT,
                      messages::too_many_node_deltas(update.node_deltas_size()));
      }
      // Decoded and checked once, by the ClusterActor: a malformed update comes back REJECTED
      // with the field path, answered below as INVALID_ARGUMENT.
      caf::error error;
      const std::string numbers = "update " + std::to_string(update.version()) + " of epoch " +
                                  std::to_string(update.epoch()) + " applies to version " +
                                  std::to_string(update.base_version());
      const auto ack =
          ask<v1::Ack>(system_, proxy, time_left(context), error, push_atom_v, std::move(update));
      if (!ack) {
        return status_of(error, "the centre did not acknowledge: ");
      }
      if (!stream->Write(*ack)) {
        return Status(StatusCode::CANCELLED, "the agent went away");
      }
      if (ack->status() == v1::Ack::GAP) {
        return Status(StatusCode::FAILED_PRECONDITION,
                      "version gap: " + numbers + ", the centre holds " +
                          std::to_string(ack->version()) +
                          "; send PushFullSnapshot, then stream again");
      }
      if (ack->status() == v1::Ack::REJECTED) {
        return Status(StatusCode::INVALID_ARGUMENT, ack->error());
      }
    }
    return Status::OK;
  }

  Status PullFullSnapshot(ServerContext* context, const v1::SnapshotRequest* request,
                          v1::ClusterSnapshot* reply) override {
    const std::string& cluster = request->cluster().cluster_id();
    if (Status allowed = authorize(context, cluster); !allowed.ok()) {
      return allowed;
    }
    if (!find(cluster)) {
      return not_found(cluster);
    }
    caf::error error;
    auto views = ask<v1::ClusterViews>(system_, hub_, time_left(context), error, nodes_atom_v,
                                       cluster, false);
    if (!views || views->clusters_size() == 0) {
      return Status(StatusCode::UNAVAILABLE,
                    "the centre has no view of \"" + cluster + "\" right now" +
                        (error ? ": " + messages::error_detail(error) : ""));
    }
    *reply = std::move(*views->mutable_clusters(0));
    return Status::OK;
  }

  Status PushFullSnapshot(ServerContext* context, const v1::ClusterSnapshot* snapshot,
                          v1::Ack* reply) override {
    const std::string& cluster = snapshot->cluster_id();
    if (Status allowed = authorize(context, cluster); !allowed.ok()) {
      return allowed;
    }
    const caf::actor proxy = find(cluster);
    if (!proxy) {
      return not_found(cluster);
    }
    if (auto decoded = messages::from_proto(*snapshot); !decoded) {
      return Status(StatusCode::INVALID_ARGUMENT, decoded.error());
    }
    caf::error error;
    auto ack = ask<v1::Ack>(system_, proxy, time_left(context), error, push_atom_v, *snapshot);
    if (!ack) {
      return status_of(error);
    }
    *reply = std::move(*ack);
    return Status::OK;
  }

  Status HealthCheck(ServerContext* context, const v1::HealthProbe* probe,
                     v1::HealthStatus* reply) override {
    if (Status allowed = authorize(context, probe->cluster_id()); !allowed.ok()) {
      return allowed;
    }
    const caf::actor proxy = find(probe->cluster_id());
    if (!proxy) {
      return not_found(probe->cluster_id());
    }
    caf::error error;
    auto status =
        ask<v1::HealthStatus>(system_, proxy, time_left(context), error, health_atom_v, *probe);
    if (!status) {
      return status_of(error);
    }
    *reply = std::move(*status);
    return Status::OK;
  }

 private:
  Status authorize(const ServerContext* context, const std::string& cluster) const {
    if (cluster.empty()) {
      return Status(StatusCode::INVALID_ARGUMENT, "cluster_id: Required value");
    }
    if (const std::string reason = model::check_cluster_id(cluster); !reason.empty()) {
      return Status(StatusCode::INVALID_ARGUMENT,
                    "cluster_id: Invalid value: " + model::quoted_brief(cluster) + ": " + reason);
    }
    if (settings_.tokens.empty()) {
      return Status::OK;
    }
    const std::string token = metadata(context, "x-cluster-token");
    std::string why = token_refusal(settings_.tokens, "cluster", cluster, token);
    if (why.empty()) {
      return Status::OK;
    }
    if (token.empty() && settings_.tokens.count(cluster) > 0) {
      why = "x-cluster-token: Required value";
    }
    spdlog::warn("grpc: {} refused: {}", context->peer(), why);
    return Status(StatusCode::UNAUTHENTICATED, why);
  }

  static Status not_found(const std::string& cluster) {
    return Status(StatusCode::NOT_FOUND,
                  "cluster \"" + cluster + "\" has not streamed updates to this centre");
  }

  caf::actor find(const std::string& cluster) {
    std::lock_guard<std::mutex> guard(mutex_);
    const auto found = proxies_.find(cluster);
    return found == proxies_.end() ? caf::actor() : found->second;
  }

  /// The cluster's proxy; a cluster new to this server is registered with the hub first. The
  /// lock guards the map only: it is not held while the hub answers, so a slow registration
  /// holds up no other stream.
  Status proxy_for(const ServerContext* context, const std::string& cluster, caf::actor& out) {
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

  /// Registers `cluster` with the hub through a new proxy, which `out` then holds.
  Status register_cluster(const ServerContext* context, const std::string& cluster,
                          caf::actor& out) {
    v1::ClusterRegistration registration;
    registration.mutable_identity()->set_cluster_id(cluster);
    registration.mutable_identity()->set_token(metadata(context, "x-cluster-token"));
    registration.set_region(metadata(context, "x-cluster-region"));
    registration.set_zone(metadata(context, "x-cluster-zone"));
    const std::string machine_type = metadata(context, "x-cluster-machine-type");
    if (!machine_type.empty() && machine_type != "VirtualMachine" && machine_type != "BareMetal") {
      return Status(
          StatusCode::INVALID_ARGUMENT,
          "x-cluster-machine-type: Unsupported value: " + model::quoted_brief(machine_type) +
              ": supported values: \"BareMetal\", \"VirtualMachine\"");
    }
    registration.set_machine_type(machine_type.empty() ? "VirtualMachine" : machine_type);
    const caf::actor proxy = actors::spawn_grpc_agent_proxy(system_, cluster, settings_.agent);
    caf::error error;
    const auto cluster_actor = ask<caf::actor>(system_, hub_, time_left(context), error,
                                               register_atom_v, registration, proxy);
    if (!cluster_actor) {
      caf::anon_send_exit(proxy, caf::exit_reason::user_shutdown);
      spdlog::warn("grpc: cluster {} from {} refused: {}", cluster, context->peer(),
                   messages::error_detail(error));
      return status_of(error);
    }
    caf::anon_send(proxy, bind_atom_v, *cluster_actor);
    spdlog::info("grpc: cluster {} joined from {}", cluster, context->peer());
    out = proxy;
    return Status::OK;
  }

  caf::actor_system& system_;
  caf::actor hub_;
  GrpcServiceSettings settings_;
  std::mutex mutex_;
  std::map<std::string, caf::actor> proxies_;
  std::set<std::string> registering_;  // clusters whose registration is under way
};

std::optional<std::string> read_text(const std::string& path) {
  std::ifstream stream(path);
  if (!stream) {
    return std::nullopt;
  }
  std::ostringstream text;
  text << stream.rdbuf();
  return text.str();
}

std::shared_ptr<grpc::ServerCredentials> credentials(const TlsFiles& tls, std::string& error) {
  if (!tls.enabled()) {
    return grpc::InsecureServerCredentials();
  }
  const auto certificate = read_text(tls.certificate);
  const auto key = read_text(tls.key);
  const auto ca = read_text(tls.ca);
  if (!certificate || !key || !ca) {
    error = "cannot read the TLS files";
    return nullptr;
  }
  grpc::SslServerCredentialsOptions options(
      GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  options.pem_root_certs = *ca;
  options.pem_key_cert_pairs.push_back({*key, *certificate});
  return grpc::SslServerCredentials(options);
}

class Server final : public GrpcMetadataServer {
 public:
  Server(std::unique_ptr<MetadataService> service, std::unique_ptr<grpc::Server> server,
         uint16_t port)
      : service_(std::move(service)), server_(std::move(server)), port_(port) {}
  ~Server() override { shutdown(); }
  uint16_t port() const override { return port_; }
  void shutdown() override {
    if (server_) {
      server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
      server_->Wait();
      server_.reset();
    }
  }

 private:
  std::unique_ptr<MetadataService> service_;  // outlives the server that calls it
  std::unique_ptr<grpc::Server> server_;
  uint16_t port_;
};

}  // namespace

std::unique_ptr<GrpcMetadataServer> GrpcMetadataServer::start(
    caf::actor_system& system, const caf::actor& hub, const Endpoint& endpoint, const TlsFiles& tls,
    const GrpcServiceSettings& settings, std::string& error) {
  auto creds = credentials(tls, error);
  if (!creds) {
    return nullptr;
  }
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  auto service = std::make_unique<MetadataService>(system, hub, settings);
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(endpoint.host + ":" + std::to_string(endpoint.port), creds, &port);
  builder.RegisterService(service.get());
  builder.SetMaxReceiveMessageSize(settings.max_message_bytes);
  grpc::ResourceQuota quota("unisched-grpc");
  quota.SetMaxThreads(settings.max_threads);
  builder.SetResourceQuota(quota);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) {
    error = "cannot listen on " + endpoint.to_string();
    return nullptr;
  }
  server->GetHealthCheckService()->SetServingStatus("unisched.v1.ClusterMetadataService", true);
  return std::make_unique<Server>(std::move(service), std::move(server),
                                  static_cast<uint16_t>(port));
}

}  // namespace unisched::runtime
