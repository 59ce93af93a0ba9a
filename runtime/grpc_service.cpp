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
#include "model/printable.hpp"
#include "runtime/design_grpc_service.hpp"
#include "runtime/grpc_calls.hpp"
#include "runtime/grpc_clusters.hpp"
#include "runtime/grpc_interceptor.hpp"

namespace unisched::runtime {
namespace {

using namespace unisched::atoms;
using grpc::ServerContext;
using grpc::Status;
using grpc::StatusCode;

class MetadataService final : public v1::ClusterMetadataService::Service {
 public:
  MetadataService(caf::actor_system& system, runtime::HubActor hub,
                  const GrpcServiceSettings& settings, std::shared_ptr<GrpcStreamGuard> streams)
      : system_(system),
        hub_(hub),
        clusters_(system, hub, settings.tokens, settings.agent),
        streams_(std::move(streams)) {}

  Status PushIncrementalUpdates(
      ServerContext* context,
      grpc::ServerReaderWriter<v1::Ack, v1::IncrementalUpdate>* stream) override {
    std::optional<GrpcStreamGuard::Admission> admission;
    if (Status admitted = streams_->admit(context, admission); !admitted.ok()) {
      return admitted;
    }
    v1::IncrementalUpdate update;
    std::string cluster;
    actors::GrpcAgentProxyActor proxy;
    while (stream->Read(&update)) {
      admission->first_message_arrived();
      if (context->IsCancelled()) {
        return Status(StatusCode::CANCELLED, "the agent cancelled the stream");
      }
      if (cluster.empty()) {
        if (Status allowed = clusters_.authorize(context, update.cluster_id(), "cluster_id");
            !allowed.ok()) {
          return allowed;
        }
        cluster = update.cluster_id();
        if (Status joined = clusters_.proxy_for(context, cluster, proxy); !joined.ok()) {
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
    if (Status allowed = clusters_.authorize(context, cluster, "cluster.cluster_id");
        !allowed.ok()) {
      return allowed;
    }
    if (!clusters_.find(cluster)) {
      return GrpcClusters::not_found(cluster);
    }
    return clusters_.view_part(context, *request, *reply);
  }

  Status PushFullSnapshot(ServerContext* context, const v1::ClusterSnapshot* snapshot,
                          v1::Ack* reply) override {
    const std::string& cluster = snapshot->cluster_id();
    if (Status allowed = clusters_.authorize(context, cluster, "cluster_id"); !allowed.ok()) {
      return allowed;
    }
    const actors::GrpcAgentProxyActor proxy = clusters_.find(cluster);
    if (!proxy) {
      return GrpcClusters::not_found(cluster);
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
    if (Status allowed = clusters_.authorize(context, probe->cluster_id(), "cluster_id");
        !allowed.ok()) {
      return allowed;
    }
    const actors::GrpcAgentProxyActor proxy = clusters_.find(probe->cluster_id());
    if (!proxy) {
      return GrpcClusters::not_found(probe->cluster_id());
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
  caf::actor_system& system_;
  runtime::HubActor hub_;
  GrpcClusters clusters_;
  std::shared_ptr<GrpcStreamGuard> streams_;
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
  Server(std::vector<std::unique_ptr<grpc::Service>> services, std::unique_ptr<grpc::Server> server,
         uint16_t port, std::chrono::milliseconds shutdown_grace)
      : services_(std::move(services)),
        server_(std::move(server)),
        port_(port),
        shutdown_grace_(shutdown_grace) {}
  ~Server() override { shutdown(); }
  uint16_t port() const override { return port_; }
  void shutdown() override {
    if (server_) {
      server_->Shutdown(std::chrono::system_clock::now() + shutdown_grace_);
      server_->Wait();
      server_.reset();
    }
  }

 private:
  std::vector<std::unique_ptr<grpc::Service>> services_;  // outlive the server that calls them
  std::unique_ptr<grpc::Server> server_;
  uint16_t port_;
  std::chrono::milliseconds shutdown_grace_;
};

}  // namespace

std::unique_ptr<GrpcMetadataServer> GrpcMetadataServer::start(
    caf::actor_system& system, const runtime::HubActor& hub, const Endpoint& endpoint,
    const TlsFiles& tls, const GrpcServiceSettings& settings, std::string& error) {
  auto creds = credentials(tls, error);
  if (!creds) {
    return nullptr;
  }
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  auto streams = std::make_shared<GrpcStreamGuard>(settings.streams, settings.tokens);
  std::vector<std::unique_ptr<grpc::Service>> services;
  services.push_back(std::make_unique<MetadataService>(system, hub, settings, streams));
  services.push_back(make_design_metadata_service(system, hub, settings, streams));
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(endpoint.host + ":" + std::to_string(endpoint.port), creds, &port);
  for (const auto& service : services) {
    builder.RegisterService(service.get());
  }
  builder.SetMaxReceiveMessageSize(settings.max_message_bytes);
  // gRPC inflates a compressed message whole before it checks its size (0.5 MB became 500 MB):
  // compression is refused (UNIMPLEMENTED) before any message is read.
  builder.SetCompressionAlgorithmSupportStatus(GRPC_COMPRESS_DEFLATE, false);
  builder.SetCompressionAlgorithmSupportStatus(GRPC_COMPRESS_GZIP, false);
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> counters;
  counters.push_back(make_call_counter());
  builder.experimental().SetInterceptorCreators(std::move(counters));
  grpc::ResourceQuota quota("unisched-grpc");
  quota.SetMaxThreads(settings.max_threads);
  builder.SetResourceQuota(quota);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) {
    error = "cannot listen on " + endpoint.to_string();
    return nullptr;
  }
  server->GetHealthCheckService()->SetServingStatus("unisched.v1.ClusterMetadataService", true);
  server->GetHealthCheckService()->SetServingStatus("ClusterMetadataService", true);
  if (settings.tokens.empty()) {
    spdlog::warn(
        "grpc: no --cluster-tokens: any cluster is accepted from any peer that reaches "
        "{} ({})",
        endpoint.to_string(),
        tls.enabled()                ? "peers holding a certificate of the TLS CA"
        : is_loopback(endpoint.host) ? "loopback only"
                                     : "anyone: --insecure-plaintext-beyond-loopback");
  } else {
    spdlog::info(
        "grpc: {} cluster tokens checked (authorization: Bearer TOKEN or "
        "x-cluster-token)",
        settings.tokens.size());
  }
  return std::make_unique<Server>(std::move(services), std::move(server),
                                  static_cast<uint16_t>(port), settings.shutdown_grace);
}

}  // namespace unisched::runtime
