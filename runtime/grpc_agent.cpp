#include "runtime/grpc_agent.hpp"

#include <grpcpp/grpcpp.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include "actors/core_summaries.hpp"
#include "actors/left_out_log.hpp"
#include "cores/agent_core.hpp"
#include "messages/convert.hpp"
#include "messages/snapshot_parts.hpp"
#include "messages/unisched.grpc.pb.h"
#include "runtime/reconnect_backoff.hpp"

namespace unisched::runtime {
namespace {

using Clock = std::chrono::steady_clock;

std::string read_text(const std::string& path) {
  std::ifstream stream(path);
  std::ostringstream text;
  text << stream.rdbuf();
  return text.str();
}

std::shared_ptr<grpc::ChannelCredentials> credentials(const TlsFiles& tls) {
  if (!tls.enabled()) {
    return grpc::InsecureChannelCredentials();
  }
  grpc::SslCredentialsOptions options;
  options.pem_root_certs = read_text(tls.ca);
  options.pem_private_key = read_text(tls.key);
  options.pem_cert_chain = read_text(tls.certificate);
  return grpc::SslCredentials(options);
}

/// Whether a failed call means the centre will never take this cluster (do not retry).
bool refused_for_good(const grpc::Status& status) {
  return status.error_code() == grpc::StatusCode::UNAUTHENTICATED ||
         status.error_code() == grpc::StatusCode::ALREADY_EXISTS ||
         status.error_code() == grpc::StatusCode::INVALID_ARGUMENT;
}

class GrpcAgent {
 public:
  GrpcAgent(std::shared_ptr<adapters::ClusterAdapter> adapter, uint64_t epoch,
            const GrpcAgentOptions& options)
      : core_(std::move(adapter), epoch),
        options_(options),
        stub_(v1::ClusterMetadataService::NewStub(
            grpc::CreateChannel(options.centre.to_string(), credentials(options.tls)))) {}

  int run(const std::function<bool()>& stop) {
    ReconnectBackoff backoff;
    while (!stop()) {
      const grpc::Status status = stream_updates(stop);
      if (status.ok() || stop()) {
        continue;
      }
      if (refused_for_good(status)) {
        std::fprintf(stderr, "error: the centre refused cluster %s: %s\n",
                     core_.cluster_id().c_str(), status.error_message().c_str());
        return 1;
      }
      if (status.error_code() == grpc::StatusCode::FAILED_PRECONDITION) {
        spdlog::info("agent {}: {}", core_.cluster_id(), status.error_message());
        send_snapshot();
        backoff.succeeded();
        continue;
      }
      spdlog::warn("agent {}: stream ended ({}); retrying in {} ms", core_.cluster_id(),
                   status.error_message(), backoff.current().count());
      pause(backoff.current(), stop);
      backoff.failed();
    }
    return 0;
  }

 private:
  void add_metadata(grpc::ClientContext& context) const {
    if (!options_.token.empty()) {
      context.AddMetadata("x-cluster-token", options_.token);
    }
    context.AddMetadata("x-cluster-region", options_.region);
    context.AddMetadata("x-cluster-zone", options_.zone);
    context.AddMetadata("x-cluster-machine-type", options_.machine_type);
    if (options_.view_only) {
      context.AddMetadata("x-cluster-view-only", "true");
    }
  }

  /// Observes until the next push is due (or `stop`).
  void pause(std::chrono::milliseconds length, const std::function<bool()>& stop) {
    if (options_.publish_summary) {
      v1::AgentSummary summary = actors::summarize(core_);
      summary.set_online(streaming_);
      options_.publish_summary(summary);
    }
    const auto until = Clock::now() + length;
    while (!stop() && Clock::now() < until) {
      const model::NodeAdmission::News left_out = core_.observe();
      actors::warn_left_out("agent " + core_.cluster_id(), left_out, core_.nodes_left_out());
      std::this_thread::sleep_for(std::min(
          options_.observe_interval, std::chrono::duration_cast<std::chrono::milliseconds>(
                                         until - Clock::now() + std::chrono::milliseconds(1))));
    }
  }

  void carry_out(const v1::Ack& ack) {
    for (const auto& order : ack.orders()) {
      std::vector<model::Reservation> placements;
      for (const auto& placement : order.placements()) {
        placements.push_back(messages::from_proto(placement));
      }
      core_.carry_out(placements);
    }
    for (const auto& release : ack.releases()) {
      core_.finish({release.placement_ids().begin(), release.placement_ids().end()});
      core_.release_requests({release.request_ids().begin(), release.request_ids().end()});
    }
  }

  /// One stream: an update per push interval, each waiting for its Ack, with a heartbeat when
  /// there is nothing to send. Ends with the stream's status.
  grpc::Status stream_updates(const std::function<bool()>& stop) {
    grpc::ClientContext context;
    add_metadata(context);
    auto stream = stub_->PushIncrementalUpdates(&context);
    streaming_ = true;
    while (!stop()) {
      if (!core_.has_pending_changes()) {
        pause(options_.push_interval, stop);  // else: the rest of a split listing goes at once
      }
      if (core_.on_push_due() == actors::AgentCore::PushKind::WholeSnapshot) {
        // A relist goes whole: held by the centre for the pull that the gap after it asks for.
        spdlog::info("agent {}: the cluster was listed again; sending a full snapshot",
                     core_.cluster_id());
        send_snapshot();
      }
      auto update = core_.next_update();
      if (!update) {
        if (!heartbeat()) {
          break;
        }
        continue;
      }
      const v1::IncrementalUpdate message = messages::to_proto(*update);
      v1::Ack ack;
      bool streaming = true;
      do {  // over the centre's rate: the same update again once the wait is over
        if (ack.status() == v1::Ack::THROTTLED) {
          pause(std::chrono::milliseconds(ack.retry_after_ms()), stop);
        }
        streaming = stream->Write(message) && stream->Read(&ack);
      } while (streaming && ack.status() == v1::Ack::THROTTLED && !stop());
      if (!streaming) {
        break;  // the status says why
      }
      carry_out(ack);
      heartbeat();
    }
    streaming_ = false;
    stream->WritesDone();
    return stream->Finish();
  }

  /// Tells the centre the agent is alive; sends a snapshot when it wants one. False when the
  /// centre cannot be reached.
  bool heartbeat() {
    grpc::ClientContext context;
    add_metadata(context);
    context.set_deadline(std::chrono::system_clock::now() + options_.heartbeat_deadline);
    v1::HealthProbe probe;
    probe.set_cluster_id(core_.cluster_id());
    probe.set_sequence(++heartbeats_);
    probe.set_epoch(core_.epoch());
    probe.set_version(core_.version());
    const std::string trouble = core_.adapter().trouble();
    probe.set_state(trouble.empty() ? v1::HEALTHY : v1::UNHEALTHY);
    probe.set_detail(trouble);
    v1::HealthStatus status;
    const grpc::Status result = stub_->HealthCheck(&context, probe, &status);
    if (result.ok() && status.snapshot_wanted()) {
      send_snapshot();
    }
    return result.ok() || result.error_code() == grpc::StatusCode::NOT_FOUND;
  }

  /// The whole state, in parts when it is large: each part once the one before was taken.
  void send_snapshot() {
    for (const v1::ClusterSnapshot& part :
         messages::split_snapshot(messages::to_proto(core_.snapshot()))) {
      grpc::ClientContext context;
      add_metadata(context);
      context.set_deadline(std::chrono::system_clock::now() + options_.snapshot_part_deadline);
      v1::Ack ack;
      const grpc::Status result = stub_->PushFullSnapshot(&context, part, &ack);
      if (!result.ok() || (ack.status() != v1::Ack::PART_TAKEN && part.part() + 1 < part.parts())) {
        spdlog::warn("agent {}: snapshot not taken: {}", core_.cluster_id(),
                     result.ok() ? ack.error() : result.error_message());
        return;
      }
    }
  }

  actors::AgentCore core_;
  GrpcAgentOptions options_;
  std::unique_ptr<v1::ClusterMetadataService::Stub> stub_;
  uint64_t heartbeats_ = 0;
  bool streaming_ = false;  ///< an update stream is open
};

}  // namespace

int run_grpc_agent(std::shared_ptr<adapters::ClusterAdapter> adapter, uint64_t epoch,
                   const GrpcAgentOptions& options, const std::function<bool()>& stop) {
  GrpcAgent agent(std::move(adapter), epoch, options);
  return agent.run(stop);
}

}  // namespace unisched::runtime
