#include "tools/bench/ingest_grpc.hpp"

#include <grpcpp/grpcpp.h>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/send.hpp>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "actors/scheduler_actor.hpp"
#include "actors/supervisor.hpp"
#include "messages/caf_types.hpp"
#include "messages/unisched.grpc.pb.h"
#include "runtime/grpc_service.hpp"
#include "runtime/hub.hpp"

namespace unisched::bench {
namespace {

using Clock = std::chrono::steady_clock;

v1::NodeState node(int index, int64_t allocated_cpu_milli) {
  v1::NodeState state;
  state.set_name("node-" + std::to_string(index));
  state.set_node_group("pool");
  state.set_allocatable_cpu_milli(64'000);
  state.set_allocatable_memory_bytes(int64_t{256} << 30);
  state.set_max_pods(110);
  state.set_allocated_cpu_milli(allocated_cpu_milli);
  state.set_schedulable(true);
  return state;
}

double percentile(std::vector<double> values, double p) {
  if (values.empty()) {
    return 0;
  }
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1, static_cast<size_t>(p * (values.size() - 1) + 0.5))];
}

/// One cluster's agent: lists its nodes, then streams `updates` updates of random node changes,
/// each waiting for its Ack. Latencies (ms) go to `latencies`; a problem to `problem`.
void stream_cluster(const std::string& address, int cluster, const IngestParameters& parameters,
                    std::vector<double>& latencies, std::string& problem) {
  auto stub = v1::ClusterMetadataService::NewStub(
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  auto stream = stub->PushIncrementalUpdates(&context);
  std::mt19937_64 random(static_cast<uint64_t>(cluster) + 1);
  const std::string id = "bench-" + std::to_string(cluster);
  for (int version = 1; version <= parameters.updates + 1; ++version) {
    v1::IncrementalUpdate update;
    update.set_cluster_id(id);
    update.set_epoch(1);
    update.set_version(static_cast<uint64_t>(version));
    update.set_base_version(static_cast<uint64_t>(version - 1));
    if (version == 1) {
      for (int n = 0; n < parameters.nodes; ++n) {
        auto* delta = update.add_node_deltas();
        delta->set_op(v1::NodeDelta::ADD);
        *delta->mutable_node() = node(n, 0);
      }
    } else {
      std::vector<int> chosen(static_cast<size_t>(parameters.nodes));
      for (int n = 0; n < parameters.nodes; ++n) {
        chosen[static_cast<size_t>(n)] = n;
      }
      std::shuffle(chosen.begin(), chosen.end(), random);
      for (int d = 0; d < std::min(parameters.deltas_per_update, parameters.nodes); ++d) {
        auto* delta = update.add_node_deltas();
        delta->set_op(v1::NodeDelta::UPDATE);
        *delta->mutable_node() =
            node(chosen[static_cast<size_t>(d)], static_cast<int64_t>(random() % 64) * 1000);
      }
    }
    const auto sent = Clock::now();
    v1::Ack ack;
    if (!stream->Write(update) || !stream->Read(&ack)) {
      problem = id + ": the stream broke at version " + std::to_string(version);
      break;
    }
    if (version > 1) {
      latencies.push_back(std::chrono::duration<double, std::milli>(Clock::now() - sent).count());
    }
    if (ack.status() != v1::Ack::APPLIED) {
      problem = id + ": update " + std::to_string(version) + " was " +
                v1::Ack::Status_Name(ack.status()) + " " + ack.error();
      break;
    }
  }
  stream->WritesDone();
  const grpc::Status status = stream->Finish();
  if (problem.empty() && !status.ok()) {
    problem = id + ": " + status.error_message();
  }
}

}  // namespace

IngestResult ingest_over_grpc(const IngestParameters& parameters) {
  caf::actor_system_config config;
  messages::register_message_types(config);
  caf::actor_system system{config};
  const caf::actor supervisor = actors::spawn_supervisor(system, actors::SupervisorSettings{});
  const caf::actor hub = runtime::spawn_hub(system, supervisor, {}, {});
  std::string error;
  auto server = runtime::GrpcMetadataServer::start(system, hub, runtime::Endpoint{"127.0.0.1", 0},
                                                   runtime::TlsFiles{},
                                                   runtime::GrpcServiceSettings{}, error);
  IngestResult result;
  if (!server) {
    result.problem = error;
  } else {
    const std::string address = "127.0.0.1:" + std::to_string(server->port());
    std::vector<std::vector<double>> latencies(static_cast<size_t>(parameters.clusters));
    std::vector<std::string> problems(static_cast<size_t>(parameters.clusters));
    const auto start = Clock::now();
    std::vector<std::thread> agents;
    for (int c = 0; c < parameters.clusters; ++c) {
      agents.emplace_back([&, c] {
        stream_cluster(address, c, parameters, latencies[static_cast<size_t>(c)],
                       problems[static_cast<size_t>(c)]);
      });
    }
    for (auto& agent : agents) {
      agent.join();
    }
    result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    std::vector<double> all;
    for (const auto& cluster : latencies) {
      all.insert(all.end(), cluster.begin(), cluster.end());
    }
    for (const auto& problem : problems) {
      if (!problem.empty() && result.problem.empty()) {
        result.problem = problem;
      }
    }
    const uint64_t per_update =
        static_cast<uint64_t>(std::min(parameters.deltas_per_update, parameters.nodes));
    const uint64_t updates = all.size();
    result.deltas = updates * per_update + static_cast<uint64_t>(parameters.clusters) *
                                               static_cast<uint64_t>(parameters.nodes);
    result.deltas_per_s =
        result.seconds > 0 ? static_cast<double>(result.deltas) / result.seconds : 0;
    result.updates_per_s = result.seconds > 0 ? static_cast<double>(updates) / result.seconds : 0;
    result.p50_ms = percentile(all, 0.50);
    result.p99_ms = percentile(all, 0.99);
    server->shutdown();
  }
  caf::anon_send_exit(hub, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(supervisor, caf::exit_reason::user_shutdown);
  return result;
}

}  // namespace unisched::bench
