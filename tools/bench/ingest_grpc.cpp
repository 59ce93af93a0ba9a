#include "tools/bench/ingest_grpc.hpp"

#include <grpcpp/grpcpp.h>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/send.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "actors/actor_types.hpp"
#include "actors/scheduler_actor.hpp"
#include "actors/supervisor.hpp"
#include "messages/caf_types.hpp"
#include "messages/unisched.grpc.pb.h"
#include "runtime/grpc_service.hpp"
#include "runtime/hub.hpp"
#include "tools/bench/fixtures.hpp"

namespace unisched::bench {
namespace {

/// The streams wait for each other after listing, so the clock measures streaming only.
struct StartLine {
  std::atomic<int> listed{0};
  std::atomic<bool> go{false};
};

/// One cluster's agent: lists its nodes, waits at the start line, then streams
/// `parameters.updates` updates, each waiting for its Ack (latency in ms to `latencies`).
void stream_cluster(const std::string& address, int cluster, const StreamParameters& parameters,
                    StartLine& start_line, std::vector<double>& latencies, uint64_t& bytes,
                    std::string& problem) {
  auto stub = v1::ClusterMetadataService::NewStub(
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  auto stream = stub->PushIncrementalUpdates(&context);
  const ChangeVariants variants =
      change_variants(parameters.nodes, parameters.deltas_per_update, parameters.gpus,
                      static_cast<uint64_t>(cluster) + 1);
  const std::string id = "bench-" + std::to_string(cluster);
  for (int version = 1; version <= parameters.updates + 1; ++version) {
    v1::IncrementalUpdate update =
        version == 1 ? node_listing(parameters.nodes, parameters.gpus)
                     : variants.updates[static_cast<size_t>(version) % variants.updates.size()];
    update.set_cluster_id(id);
    update.set_epoch(1);
    update.set_version(static_cast<uint64_t>(version));
    update.set_base_version(static_cast<uint64_t>(version - 1));
    const auto sent = Clock::now();
    v1::Ack ack;
    if (!stream->Write(update) || !stream->Read(&ack)) {
      problem = id + ": the stream broke at version " + std::to_string(version);
      break;
    }
    if (ack.status() != v1::Ack::APPLIED) {
      problem = id + ": update " + std::to_string(version) + " was " +
                v1::Ack::Status_Name(ack.status()) + " " + ack.error();
      break;
    }
    if (version == 1) {
      ++start_line.listed;
      while (!start_line.go) {
        std::this_thread::yield();
      }
    } else {
      latencies.push_back(milliseconds_since(sent));
      bytes += update.ByteSizeLong();
    }
  }
  if (!problem.empty()) {
    ++start_line.listed;  // never hold the others back
  }
  stream->WritesDone();
  const grpc::Status status = stream->Finish();
  if (problem.empty() && !status.ok()) {
    problem = id + ": " + status.error_message();
  }
}

}  // namespace

IngestResult ingest_over_grpc(const StreamParameters& parameters) {
  caf::actor_system_config config;
  actors::configure_actor_system(config);
  caf::actor_system system{config};
  const auto supervisor = actors::spawn_supervisor(system, actors::SupervisorSettings{});
  const auto hub = runtime::spawn_hub(system, supervisor, {}, {});
  std::string error;
  runtime::GrpcServiceSettings settings;
  settings.streams.per_peer = settings.streams.total;  // every agent here shares loopback
  auto server = runtime::GrpcMetadataServer::start(system, hub, runtime::Endpoint{"127.0.0.1", 0},
                                                   runtime::TlsFiles{}, settings, error);
  IngestResult result;
  if (!server) {
    result.problem = error;
  } else {
    const std::string address = "127.0.0.1:" + std::to_string(server->port());
    const auto clusters = static_cast<size_t>(parameters.clusters);
    std::vector<std::vector<double>> latencies(clusters);
    std::vector<uint64_t> bytes(clusters);
    std::vector<std::string> problems(clusters);
    StartLine start_line;
    std::vector<std::thread> agents;
    for (size_t c = 0; c < clusters; ++c) {
      agents.emplace_back([&, c] {
        stream_cluster(address, static_cast<int>(c), parameters, start_line, latencies[c], bytes[c],
                       problems[c]);
      });
    }
    while (start_line.listed < parameters.clusters) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    const double cpu_at_start = cpu_seconds();
    const auto start = Clock::now();
    start_line.go = true;
    for (auto& agent : agents) {
      agent.join();
    }
    result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    result.cpu_seconds = cpu_seconds() - cpu_at_start;
    std::vector<double> all;
    for (size_t c = 0; c < clusters; ++c) {
      all.insert(all.end(), latencies[c].begin(), latencies[c].end());
      result.bytes += bytes[c];
      if (result.problem.empty()) {
        result.problem = problems[c];
      }
    }
    count_streamed(result, all, parameters);
    server->shutdown();
  }
  caf::anon_send_exit(hub, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(supervisor, caf::exit_reason::user_shutdown);
  return result;
}

}  // namespace unisched::bench
