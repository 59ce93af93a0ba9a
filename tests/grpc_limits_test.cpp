// The gRPC door against callers who hold it or blow it up (issue 66, item 2): idle update
// streams cannot starve the threads that answer HealthCheck; a stream without a cluster's token
// is refused before it holds a thread; a stream that sends nothing is closed; a compressed
// message is refused before it is inflated.
#include <grpcpp/grpcpp.h>
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <memory>
#include <vector>

#include "messages/unisched.grpc.pb.h"
#include "tests/hub_process.hpp"
#include "tests/raw_socket.hpp"

using unisched::testing::Hub;
namespace v1 = unisched::v1;
using namespace std::chrono_literals;

namespace {

std::unique_ptr<v1::ClusterMetadataService::Stub> stub_for(const Hub& hub) {
  return v1::ClusterMetadataService::NewStub(grpc::CreateChannel(
      unisched::testing::printed_grpc_address(*hub.process), grpc::InsecureChannelCredentials()));
}

/// Update streams opened and left without a message, as an attacker would.
struct IdleStreams {
  grpc::CompletionQueue queue;
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
  std::vector<std::unique_ptr<grpc::ClientAsyncReaderWriter<v1::IncrementalUpdate, v1::Ack>>> calls;

  IdleStreams(v1::ClusterMetadataService::Stub& stub, int count) {
    for (int i = 0; i < count; ++i) {
      contexts.push_back(std::make_unique<grpc::ClientContext>());
      calls.push_back(stub.PrepareAsyncPushIncrementalUpdates(contexts.back().get(), &queue));
      calls.back()->StartCall(reinterpret_cast<void*>(static_cast<intptr_t>(i)));
    }
  }
  ~IdleStreams() {
    for (auto& context : contexts) {
      context->TryCancel();
    }
    queue.Shutdown();
    void* tag = nullptr;
    bool ok = false;
    while (queue.Next(&tag, &ok)) {
    }
  }
};

/// The status of a stream opened with `token` (none when empty) that sends nothing.
grpc::Status silent_stream(v1::ClusterMetadataService::Stub& stub, const std::string& token,
                           std::chrono::seconds patience) {
  grpc::ClientContext context;
  if (!token.empty()) {
    context.AddMetadata("authorization", "Bearer " + token);
  }
  context.set_deadline(std::chrono::system_clock::now() + patience);
  auto stream = stub.PushIncrementalUpdates(&context);
  v1::Ack ack;
  while (stream->Read(&ack)) {
  }
  return stream->Finish();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(grpc_limits)

BOOST_AUTO_TEST_CASE(idle_streams_from_one_address_never_starve_its_health_checks) {
  // 300 idle streams used to take every thread of the server: every other call, the real
  // agents' HealthCheck included, got RESOURCE_EXHAUSTED, and nothing was logged.
  Hub hub(0, {"--grpc", "127.0.0.1:0"});
  const auto stub = stub_for(hub);
  IdleStreams idle(*stub, 400);
  std::this_thread::sleep_for(1s);  // the server has taken (or refused) them all
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + 5s);
  v1::HealthProbe probe;
  probe.set_cluster_id("nobody");
  v1::HealthStatus status;
  const grpc::Status answered = stub->HealthCheck(&context, probe, &status);
  BOOST_TEST(answered.error_code() == grpc::StatusCode::NOT_FOUND, answered.error_message());
  BOOST_TEST(hub.process->output().find("refused an update stream from ipv4:127.0.0.1:") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_stream_without_a_clusters_token_is_refused_before_its_first_message) {
  unisched::testing::ScratchDirectory dir;
  const std::string tokens = dir.write("tokens", "a100-uswest 0123456789abcdef0123\n");
  Hub hub(0, {"--grpc", "127.0.0.1:0", "--cluster-tokens", tokens});
  const auto stub = stub_for(hub);
  // Refused as it opens (it used to wait for its first message, holding a thread, until the
  // caller's deadline).
  const grpc::Status refused = silent_stream(*stub, "", 20s);
  BOOST_TEST(refused.error_code() == grpc::StatusCode::UNAUTHENTICATED, refused.error_message());
  BOOST_TEST(silent_stream(*stub, "not-a-token-of-any-cluster", 20s).error_code() ==
             grpc::StatusCode::UNAUTHENTICATED);
  // A stream with a cluster's token that never sends its first message is closed.
  const grpc::Status closed = silent_stream(*stub, "0123456789abcdef0123", 30s);
  BOOST_TEST(closed.error_code() == grpc::StatusCode::CANCELLED, closed.error_message());
  BOOST_TEST(hub.process->output().find("no message within 10000 ms of opening it") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_compressed_message_is_refused_before_it_is_inflated) {
  // 0.5 MB that inflated to 500 MB took the hub from 155 to 627 MiB, no token needed.
  Hub hub(0, {"--grpc", "127.0.0.1:0"});
  const auto stub = stub_for(hub);
  const uint64_t before = unisched::testing::resident_bytes(hub.process->pid());
  v1::ClusterSnapshot snapshot;
  snapshot.set_cluster_id("bomb");
  (*snapshot.add_nodes()->mutable_labels())["unisched.io/zeros"] = std::string(15 << 20, '0');
  grpc::ClientContext context;
  context.set_compression_algorithm(GRPC_COMPRESS_GZIP);
  context.set_deadline(std::chrono::system_clock::now() + 20s);
  v1::Ack ack;
  const grpc::Status refused = stub->PushFullSnapshot(&context, snapshot, &ack);
  BOOST_TEST(refused.error_code() == grpc::StatusCode::UNIMPLEMENTED, refused.error_message());
  const uint64_t after = unisched::testing::resident_bytes(hub.process->pid());
  BOOST_TEST(after < before + (64u << 20), "the hub grew from " << before << " to " << after);
}

// A node an agent should never send (a name with terminal escapes, more devices than a node may
// offer, more in use than it has) is left out by name; the rest of its cluster is kept and the
// warning prints the name escaped (issue 66, items 5 and 7).
BOOST_AUTO_TEST_CASE(unusable_nodes_are_left_out_and_their_cluster_kept) {
  Hub hub(0, {"--grpc", "127.0.0.1:0"});
  const auto stub = stub_for(hub);
  v1::IncrementalUpdate update;
  update.set_cluster_id("door");
  update.set_epoch(1);
  update.set_version(1);
  const auto add = [&](const std::string& name) {
    auto* delta = update.add_node_deltas();
    delta->set_op(v1::NodeDelta::ADD);
    v1::NodeState* node = delta->mutable_node();
    node->set_name(name);
    node->set_allocatable_cpu_milli(4000);
    node->set_allocatable_memory_bytes(int64_t{1} << 34);
    node->set_max_pods(110);
    node->set_schedulable(true);
    return node;
  };
  add("good-1");
  add("evil\x1b[2J\n[error] forged");
  v1::NodeState* many = add("many");
  for (int i = 0; i < 5000; ++i) {
    v1::Accelerator* device = many->add_accelerators();
    device->set_model("A100");
    device->set_resource("nvidia.com/gpu");
  }
  add("full")->set_allocated_cpu_milli(9000);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + 10s);
  auto stream = stub->PushIncrementalUpdates(&context);
  BOOST_TEST_REQUIRE(stream->Write(update));
  v1::Ack ack;
  BOOST_TEST_REQUIRE(stream->Read(&ack));
  BOOST_TEST(ack.status() == v1::Ack::APPLIED, ack.error());
  stream->WritesDone();
  BOOST_TEST(stream->Finish().ok());

  const auto view = hub.node_view("door");
  BOOST_TEST(view.size() == 1u);
  BOOST_TEST(view.count("good-1") == 1u);
  const auto cluster = hub.cluster("door");
  BOOST_TEST_REQUIRE(cluster.has_value());
  BOOST_TEST(unisched::testing::number(*cluster, "nodes_left_out") == 3);
  const std::string log = hub.process->output();
  BOOST_TEST(
      log.find("invalid node name: node \"evil\\x1b[2J\\n[error] forged\"") != std::string::npos,
      log);
  BOOST_TEST(log.find("too many devices: node \"many\": 5000 devices") != std::string::npos);
  BOOST_TEST(log.find("allocated exceeds allocatable: node \"full\"") != std::string::npos);
  BOOST_TEST(log.find('\x1b') == std::string::npos);
  BOOST_TEST(hub.process->stop() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
