// The gRPC door end to end: a Node.js client built on the official @grpc/grpc-js (installed by
// the grpc_node_packages test fixture) and the C++ agent's gRPC mode, against `unisched serve
// --grpc`.
#include <grpcpp/grpcpp.h>
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <set>

#include "messages/snapshot_parts.hpp"
#include "messages/unisched.grpc.pb.h"
#include "tests/hub_process.hpp"
#include "tests/shared_data.hpp"

using unisched::testing::ActorHarness;
using unisched::testing::ChildProcess;
using unisched::testing::Hub;

namespace {

const std::string kProto = std::string(UNISCHED_SOURCE_DIR) + "/messages/unisched.proto";

/// The gRPC address a hub started with --grpc printed.
std::string grpc_address(const Hub& hub) {
  return unisched::testing::printed_grpc_address(*hub.process);
}

const std::string kSeedProto = std::string(UNISCHED_SOURCE_DIR) + "/messages/design_metadata.proto";
const std::string kDefinedHere = "// ---- Defined here";

/// The .proto a team would write from the design document: the seed's IDL exactly as section
/// 3.4 prints it (read from ../shared/seed when it is there), the one line protoc needs, and
/// our definitions of the messages it leaves undefined.
std::string proto_from_the_seed(const unisched::testing::ScratchDirectory& dir) {
  const std::string ours = unisched::testing::read_file(kSeedProto);
  const std::string definitions = ours.substr(ours.find(kDefinedHere));
  std::string seed;
  const auto seed_dir = unisched::testing::shared_path("seed");
  if (!seed_dir.empty() && std::filesystem::exists(seed_dir)) {
    for (const auto& entry : std::filesystem::directory_iterator(seed_dir)) {
      seed += unisched::testing::read_file(entry.path().string());
    }
  }
  const size_t begin = seed.find("service ClusterMetadataService {");
  if (begin == std::string::npos) {
    BOOST_TEST_MESSAGE("../shared/seed is absent: the seed's IDL is read from " + kSeedProto);
    return kSeedProto;
  }
  const std::string last_field = "  string healthStatus = 5;\n}";
  const size_t end = seed.find(last_field, begin) + last_field.size();
  const std::string idl = seed.substr(begin, end - begin);
  // Our copy carries the same text, byte for byte.
  BOOST_TEST(ours.find(idl) != std::string::npos,
             "messages/design_metadata.proto differs from the seed");
  return dir.write("seed_from_the_document.proto",
                   "syntax = \"proto3\";\n\n" + idl + "\n\n" + definitions);
}

/// Runs `node SCRIPT_AND_ARGUMENTS` where ctest installed the Node.js packages
/// (UNISCHED_GRPC_NODE_DIR), for at most `seconds`; checks that it exited 0 and returns what it
/// printed.
std::string run_node_client(const unisched::testing::ScratchDirectory& dir,
                            const std::string& script_and_arguments, int seconds) {
  const char* modules = std::getenv("UNISCHED_GRPC_NODE_DIR");
  BOOST_TEST_REQUIRE(modules != nullptr, "UNISCHED_GRPC_NODE_DIR is not set (ctest sets it)");
  const std::string out = dir.path() + "/node.out";
  const int status =
      std::system(("cd " + std::string(modules) + " && timeout " + std::to_string(seconds) +
                   " node " + script_and_arguments + " >" + out + " 2>&1")
                      .c_str());
  const std::string steps = unisched::testing::read_file(out);
  BOOST_TEST(WIFEXITED(status));
  BOOST_TEST(WEXITSTATUS(status) == 0, steps);
  return steps;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(grpc_service)

BOOST_AUTO_TEST_CASE(a_nodejs_client_registers_streams_recovers_from_a_gap_and_reads_back) {
  unisched::testing::ScratchDirectory dir;
  const std::string tokens = dir.write("tokens", "node-cluster 0123456789abcdef0123\n");
  Hub hub(0, {"--grpc", "127.0.0.1:0", "--cluster-tokens", tokens});
  const std::string steps = run_node_client(
      dir, "client.js " + grpc_address(hub) + " " + kProto + " node-cluster 0123456789abcdef0123",
      60);
  for (const char* step :
       {"ok health SERVING", "ok reflection", "ok unauthenticated", "ok not-found",
        "ok hostile-ids refused", "ok streamed version 2", "ok invalid-argument",
        "ok too-many node_deltas", "ok one-cluster-per-stream", "ok resource-exhausted",
        "ok gap version gap", "ok snapshot sent", "ok resumed at version 6",
        "state {\"n1\":1500,\"n2\":500,\"n3\":2000}"}) {
    BOOST_TEST(steps.find(step) != std::string::npos, step << " in:\n" << steps);
  }
  // The view the Node.js agent built is the one CAF clients read.
  const auto views = hub.get("nodes --cluster node-cluster");
  std::map<std::string, int64_t> cpu;
  for (const auto& node : views["clusters"][0]["nodes"]) {
    cpu[unisched::testing::text(node, "name")] =
        unisched::testing::number(node, "allocated_cpu_milli");
  }
  BOOST_TEST(cpu == (std::map<std::string, int64_t>{{"n1", 1500}, {"n2", 500}, {"n3", 2000}}));
  BOOST_TEST(hub.process->output().find("grpc: ") != std::string::npos);
  BOOST_TEST(hub.process->stop() == 0);
}

BOOST_AUTO_TEST_CASE(the_cpp_agent_over_grpc_gets_placements_and_its_death_is_seen) {
  Hub hub(0, {"--grpc", "127.0.0.1:0"});
  ChildProcess agent(
      {unisched::testing::kBinary, "agent", "--transport", "grpc", "--hub", grpc_address(hub),
       "--profile", unisched::testing::kProfiles + "a100-nvlink-uswest.yaml", "--push-interval",
       "200ms"},
      hub.dir.path() + "/grpc-agent.log");
  ActorHarness::wait_until(
      [&] {
        const auto cluster = hub.cluster("a100-uswest");
        return cluster && cluster->value("healthy", false) &&
               unisched::testing::number(*cluster, "version") >= 3;
      },
      "the gRPC agent's cluster healthy and updating", std::chrono::seconds(30));
  const std::string gang = hub.dir.write(
      "gang.yaml",
      "apiVersion: scheduling.cluster.io/v1\nkind: SchedulingRequest\nmetadata:\n  name: gang\n"
      "spec:\n  replicas: 2\n  resources:\n    cpu: \"8\"\n    memory: 64Gi\n    accelerators:\n"
      "      - model: NVIDIA-A100-SXM4-80GB\n        count: 4\n  distribution:\n    gang: true\n");
  const auto [placed, decision] = hub.client("submit -f " + gang + " --wait --timeout 30s");
  BOOST_TEST(placed == 0, decision);
  // The placement orders reached the agent on its Acks, and it reported them carried out.
  ActorHarness::wait_until(
      [&] {
        const auto [status, text] = hub.client("describe cluster a100-uswest");
        return text.find("Placements:    2 confirmed") != std::string::npos;
      },
      "both placements confirmed by the gRPC agent", std::chrono::seconds(20));
  // Storage in quantities, as the profile wrote them.
  const auto [described, description] = hub.client("describe cluster a100-uswest");
  BOOST_TEST(std::regex_search(description,
                               std::regex("Storage:       nvme-local: (0|[0-9]+[KMGTPE]i|about "
                                          "[0-9]+\\.[0-9][KMGTPE]i) of 240Ti used\n")),
             description);
  BOOST_TEST(agent.stop(SIGKILL) == -SIGKILL);
  ActorHarness::wait_until([&] { return hub.has_health("a100-uswest", false); },
                           "the killed gRPC agent's cluster unhealthy", std::chrono::seconds(20));
  BOOST_TEST(hub.process->stop() == 0);
}

// Over its cluster's update rate the gRPC door answers THROTTLED with a wait; the C++ agent sends
// the same update again after it, so the view goes on without a gap or a resync.
BOOST_AUTO_TEST_CASE(a_grpc_agent_over_its_update_rate_is_throttled_and_resends_in_order) {
  Hub hub(0, {"--grpc", "127.0.0.1:0", "--cluster-update-rate", "4"});
  ChildProcess agent(
      {unisched::testing::kBinary, "agent", "--transport", "grpc", "--hub", grpc_address(hub),
       "--profile", unisched::testing::kProfiles + "a100-nvlink-uswest.yaml", "--push-interval",
       "20ms"},
      hub.dir.path() + "/grpc-agent.log");
  const auto counter = [&](const char* field) {
    const auto cluster = hub.cluster("a100-uswest");
    return cluster ? unisched::testing::number(*cluster, field) : 0;
  };
  ActorHarness::wait_until([&] { return counter("throttled") >= 5; },
                           "updates throttled at the gRPC door", std::chrono::seconds(30));
  const int64_t version = counter("version");
  const int64_t resyncs = counter("resyncs");
  ActorHarness::wait_until([&] { return counter("version") >= version + 10; },
                           "the throttled agent's updates applied", std::chrono::seconds(30));
  BOOST_TEST(counter("gaps") == 0);
  BOOST_TEST(counter("resyncs") == resyncs);
  BOOST_TEST(hub.has_health("a100-uswest", true));
  BOOST_TEST(agent.stop() == 0, agent.output());
  BOOST_TEST(hub.process->stop() == 0);
}

BOOST_AUTO_TEST_CASE(a_grpc_agent_with_the_wrong_token_is_refused_and_stops) {
  unisched::testing::ScratchDirectory dir;
  const std::string tokens = dir.write("tokens", "a100-uswest 0123456789abcdef0123\n");
  Hub hub(0, {"--grpc", "127.0.0.1:0", "--cluster-tokens", tokens});
  ChildProcess agent(
      {unisched::testing::kBinary, "agent", "--transport", "grpc", "--hub", grpc_address(hub),
       "--profile", unisched::testing::kProfiles + "a100-nvlink-uswest.yaml", "--token",
       "not-the-token-at-all"},
      dir.path() + "/agent.log");
  BOOST_TEST(agent.stop(0) == 1);  // it gives up by itself
  // Refused as its update stream opens, before it names the cluster (issue 66, item 2).
  BOOST_TEST(agent.output().find("the token presented is no cluster's") != std::string::npos,
             agent.output());
  BOOST_TEST(hub.process->output().find("grpc: ") != std::string::npos);
  BOOST_TEST(hub.process->stop() == 0);
}

BOOST_AUTO_TEST_CASE(grpc_over_mutual_tls_admits_only_certificates_from_the_ca) {
  unisched::testing::ScratchDirectory certs;
  const std::string dir = certs.path();
  unisched::testing::make_certificates(dir,
                                       {{"hub", "ca"}, {"agent", "ca"}, {"rogue", "other-ca"}});
  std::vector<std::string> serve = {"--grpc", "127.0.0.1:0"};
  for (const std::string& flag : unisched::testing::tls_flags(dir, "hub")) {
    serve.push_back(flag);
  }
  Hub hub(0, serve);
  const auto agent = [&](const std::string& cluster, const std::string& who) {
    std::vector<std::string> args = {unisched::testing::kBinary,
                                     "agent",
                                     "--transport",
                                     "grpc",
                                     "--hub",
                                     grpc_address(hub),
                                     "--profile",
                                     unisched::testing::kProfiles + "t4-vm-useast.yaml",
                                     "--cluster",
                                     cluster};
    if (!who.empty()) {
      for (const std::string& flag : unisched::testing::tls_flags(dir, who)) {
        args.push_back(flag);
      }
    }
    return std::make_unique<ChildProcess>(args, dir + "/" + cluster + ".log");
  };
  auto good = agent("trusted", "agent");
  auto rogue = agent("rogue", "rogue");
  auto plain = agent("plain", "");
  std::string get = "get clusters -o json";
  for (const std::string& flag : unisched::testing::tls_flags(dir, "agent")) {
    get += " " + flag;
  }
  ActorHarness::wait_until(
      [&] {
        const auto [status, output] = hub.client(get);
        const auto list = unisched::testing::parse_json(output);
        return status == 0 && list.is_object() && list["clusters"].size() == 1u &&
               list["clusters"][0].value("id", "") == "trusted" &&
               list["clusters"][0].value("healthy", false);
      },
      "the agent with a certificate from the CA registered over gRPC", std::chrono::seconds(30));
  const auto [status, listing] = hub.client(get);
  BOOST_TEST(listing.find("\"rogue\"") == std::string::npos, listing);
  BOOST_TEST(listing.find("\"plain\"") == std::string::npos, listing);
  BOOST_TEST(rogue->output().find("retrying") != std::string::npos, rogue->output());
  BOOST_TEST(plain->output().find("retrying") != std::string::npos, plain->output());
  BOOST_TEST(good->stop() == 0);
  BOOST_TEST(hub.process->stop() == 0);
}

BOOST_AUTO_TEST_CASE(a_grpc_agent_for_a_cluster_a_caf_agent_holds_is_refused) {
  Hub hub(0, {"--grpc", "127.0.0.1:0"});
  auto caf_agent = hub.agent("t4-vm-useast.yaml");
  ActorHarness::wait_until([&] { return hub.has_health("t4-useast", true); },
                           "the CAF agent registered", std::chrono::seconds(20));
  ChildProcess grpc_agent(
      {unisched::testing::kBinary, "agent", "--transport", "grpc", "--hub", grpc_address(hub),
       "--profile", unisched::testing::kProfiles + "t4-vm-useast.yaml"},
      hub.dir.path() + "/second.log");
  BOOST_TEST(grpc_agent.stop(0) == 1);
  BOOST_TEST(grpc_agent.output().find("already registered") != std::string::npos,
             grpc_agent.output());
  BOOST_TEST(caf_agent->stop() == 0);
  BOOST_TEST(hub.process->stop() == 0);
}

BOOST_AUTO_TEST_CASE(a_client_generated_from_the_seeds_text_joins_as_a_view_only_cluster) {
  unisched::testing::ScratchDirectory dir;
  const std::string proto = proto_from_the_seed(dir);
  const std::string tokens = dir.write(
      "tokens", "seed-cluster 0123456789abcdef0123\nquiet-cluster fedcba9876543210fedc\n");
  Hub hub(0, {"--grpc", "127.0.0.1:0", "--cluster-tokens", tokens});
  const std::string steps = run_node_client(
      dir,
      "design_client.js " + grpc_address(hub) + " " + proto + " " + UNISCHED_SOURCE_DIR +
          "/messages seed-cluster 0123456789abcdef0123 quiet-cluster fedcba9876543210fedc",
      60);
  for (const char* step :
       {"ok wrong-token UNAUTHENTICATED", "ok pushed 1..3 APPLIED version 3",
        "ok health HEALTHY version 3 view-only", "ok snapshot version 3", "ok not-found NOT_FOUND",
        "ok gap GAP version 3", "ok back BEHIND version 3", "ok free-text health APPLIED version 5",
        "ok bad-version INVALID_ARGUMENT", "ok bad-start INVALID_ARGUMENT",
        "ok bad-node INVALID_ARGUMENT", "ok nothing lost", "ok partial GAP version 6",
        "ok restart APPLIED version 3"}) {
    BOOST_TEST(steps.find(step) != std::string::npos, step << " in:\n" << steps);
  }
  // Free text that names no state is taken as UNKNOWN and said once (issue 66, item 7).
  BOOST_TEST(hub.process->output().find("healthStatus \"GREAT\" is none of") != std::string::npos);
  const auto cluster = hub.cluster("seed-cluster");
  BOOST_TEST_REQUIRE(cluster.has_value());
  BOOST_TEST(unisched::testing::number(*cluster, "version") == 3);
  BOOST_TEST(cluster->value("view_only", false));
  // Work that only this cluster could hold is not placed there, and says why.
  const std::string request = hub.dir.write(
      "request.yaml",
      "apiVersion: scheduling.cluster.io/v1\nkind: SchedulingRequest\nmetadata:\n  name: "
      "cpu-work\nspec:\n  resources:\n    cpu: 1\n");
  const auto [placed, decision] = hub.client("submit -f " + request + " --wait --timeout 20s");
  BOOST_TEST(decision.find("view only") != std::string::npos, decision);
  BOOST_TEST(hub.process->output().find("through the seed's service (a view only)") !=
             std::string::npos);
  BOOST_TEST(hub.process->stop() == 0);
}

// The seed's door over a cluster's update rate: the stream ends RESOURCE_EXHAUSTED with nothing
// taken, and the agent that streams the same version again loses nothing.
BOOST_AUTO_TEST_CASE(a_design_client_over_its_update_rate_is_refused_whole_and_resumes) {
  unisched::testing::ScratchDirectory dir;
  const std::string proto = proto_from_the_seed(dir);
  const std::string tokens = dir.write("tokens", "seed-cluster 0123456789abcdef0123\n");
  Hub hub(0, {"--grpc", "127.0.0.1:0", "--cluster-tokens", tokens, "--cluster-update-rate", "10"});
  const std::string steps = run_node_client(
      dir,
      "design_client.js " + grpc_address(hub) + " " + proto + " " + UNISCHED_SOURCE_DIR +
          "/messages seed-cluster 0123456789abcdef0123 none none throttled",
      120);
  BOOST_TEST(steps.find("every version applied up to 40") != std::string::npos, steps);
  const auto cluster = hub.cluster("seed-cluster");
  BOOST_TEST_REQUIRE(cluster.has_value());
  BOOST_TEST(unisched::testing::number(*cluster, "version") == 40);
  BOOST_TEST(unisched::testing::number(*cluster, "throttled") > 0);
  BOOST_TEST(unisched::testing::number(*cluster, "gaps") == 0);
  BOOST_TEST(hub.process->stop() == 0);
}

BOOST_AUTO_TEST_CASE(the_single_node_run_lets_grpc_agents_join_when_asked) {
  unisched::testing::ScratchDirectory dir;
  const std::string address = "127.0.0.1:" + std::to_string(unisched::testing::free_port());
  ChildProcess run({unisched::testing::kBinary, "run", "--profiles",
                    std::string(UNISCHED_SOURCE_DIR) + "/config/profiles", "--duration", "4s",
                    "--grpc", address},
                   dir.path() + "/run.log");
  ActorHarness::wait_until(
      [&] { return run.output().find("gRPC serving on " + address) != std::string::npos; },
      "run serving gRPC", std::chrono::seconds(10));
  ChildProcess agent(
      {unisched::testing::kBinary, "agent", "--transport", "grpc", "--hub", address, "--profile",
       unisched::testing::kProfiles + "t4-vm-useast.yaml", "--cluster", "outside"},
      dir.path() + "/agent.log");
  ActorHarness::wait_until(
      [&] { return run.output().find("grpc: cluster outside joined") != std::string::npos; },
      "the outside agent joined the run", std::chrono::seconds(10));
  BOOST_TEST(agent.stop() == 0);
  ActorHarness::wait_until([&] { return run.output().find("overcommits") != std::string::npos; },
                           "the run's summary", std::chrono::seconds(20));
  BOOST_TEST(run.stop(0) == 0);  // it ends by itself after --duration
  BOOST_TEST(run.output().find("overcommits 0") != std::string::npos, run.output());
}

// A view larger than one message is pulled part by part, as a client in another language
// would: part 0 says how many parts follow, each later part is asked for by the epoch and version
// part 0 carried, and a part of a view no longer kept is refused with the way to start again.
BOOST_AUTO_TEST_CASE(a_large_clusters_view_is_pulled_over_grpc_in_parts) {
  constexpr int kNodes = 10'500;
  Hub hub(0, {"--grpc", "127.0.0.1:0"});
  const std::string profile = hub.dir.write(
      "large.yaml",
      "apiVersion: scheduling.cluster.io/v1\nkind: ClusterResourceProfile\nmetadata:\n"
      "  name: large\nspec:\n  clusterID: large\n  nodeGroups:\n    - name: compute\n"
      "      count: " +
          std::to_string(kNodes) +
          "\n      node:\n        cpu: \"64\"\n        memory: 256Gi\n        maxPods: 110\n");
  ChildProcess agent({unisched::testing::kBinary, "agent", "--transport", "grpc", "--hub",
                      grpc_address(hub), "--profile", profile},
                     hub.dir.path() + "/large-agent.log");
  ActorHarness::wait_until(
      [&] {
        const auto cluster = hub.cluster("large");
        return cluster && unisched::testing::number(*cluster, "nodes") == kNodes;
      },
      "every node of the large cluster in the centre's view", std::chrono::seconds(60));

  const auto stub = unisched::v1::ClusterMetadataService::NewStub(
      grpc::CreateChannel(grpc_address(hub), grpc::InsecureChannelCredentials()));
  const auto pull = [&](const unisched::v1::SnapshotRequest& request,
                        unisched::v1::ClusterSnapshot& reply) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
    return stub->PullFullSnapshot(&context, request, &reply);
  };
  unisched::v1::SnapshotRequest request;
  request.mutable_cluster()->set_cluster_id("large");
  unisched::v1::ClusterSnapshot first;
  const grpc::Status pulled = pull(request, first);
  BOOST_TEST_REQUIRE(pulled.ok(), pulled.error_message());
  BOOST_TEST_REQUIRE(first.parts() == 2u);
  BOOST_TEST(first.nodes_size() <= static_cast<int>(unisched::messages::kMaxNodesPerSnapshotPart));

  unisched::messages::SnapshotAssembler assembler;
  BOOST_TEST_REQUIRE(static_cast<bool>(assembler.add(first)));
  unisched::v1::ClusterSnapshot second;
  const grpc::Status next = pull(assembler.next_request(), second);
  BOOST_TEST_REQUIRE(next.ok(), next.error_message());
  auto whole = assembler.add(second);
  BOOST_TEST_REQUIRE(static_cast<bool>(whole), (whole ? std::string() : whole.error()));
  BOOST_TEST_REQUIRE(whole->has_value());
  std::set<std::string> names;
  for (const auto& node : (*whole)->nodes()) {
    names.insert(node.name());
  }
  BOOST_TEST(names.size() == static_cast<size_t>(kNodes));

  // A part of a version the centre does not keep, and a part past the last.
  for (const auto& [part, version] : {std::pair<uint32_t, uint64_t>{1, first.version() + 1000},
                                      std::pair<uint32_t, uint64_t>{7, first.version()}}) {
    unisched::v1::SnapshotRequest stale;
    stale.mutable_cluster()->set_cluster_id("large");
    stale.set_part(part);
    stale.set_epoch(first.epoch());
    stale.set_version(version);
    unisched::v1::ClusterSnapshot refused;
    const grpc::Status status = pull(stale, refused);
    BOOST_TEST(status.error_code() == grpc::StatusCode::ABORTED, status.error_message());
    BOOST_TEST(status.error_message().find("pull again from part 0") != std::string::npos,
               status.error_message());
  }
  BOOST_TEST(agent.stop() == 0);
  BOOST_TEST(hub.process->stop() == 0);
}

// An agent that answers but cannot see its cluster (its API server failing) says so in its
// heartbeat: the cluster takes no work until it says otherwise (issue 66, item 6).
BOOST_AUTO_TEST_CASE(a_grpc_agent_that_reports_its_cluster_unhealthy_makes_it_so) {
  Hub hub(0, {"--grpc", "127.0.0.1:0"});
  const auto stub = unisched::v1::ClusterMetadataService::NewStub(
      grpc::CreateChannel(grpc_address(hub), grpc::InsecureChannelCredentials()));
  unisched::v1::IncrementalUpdate first;
  first.set_cluster_id("blind");
  first.set_epoch(1);
  first.set_version(1);
  auto* delta = first.add_node_deltas();
  delta->set_op(unisched::v1::NodeDelta::ADD);
  delta->mutable_node()->set_name("n1");
  delta->mutable_node()->set_allocatable_cpu_milli(1000);
  delta->mutable_node()->set_max_pods(10);
  {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    auto stream = stub->PushIncrementalUpdates(&context);
    BOOST_TEST_REQUIRE(stream->Write(first));
    unisched::v1::Ack ack;
    BOOST_TEST_REQUIRE(stream->Read(&ack));
    BOOST_TEST(ack.status() == unisched::v1::Ack::APPLIED, ack.error());
    stream->WritesDone();
    BOOST_TEST(stream->Finish().ok());
  }
  // Heartbeats keep the agent heard; what they say of the cluster decides its health.
  const auto beat_until = [&](unisched::v1::HealthState state, bool healthy, const char* what) {
    ActorHarness::wait_until(
        [&] {
          grpc::ClientContext context;
          context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
          unisched::v1::HealthProbe probe;
          probe.set_cluster_id("blind");
          probe.set_epoch(1);
          probe.set_version(1);
          probe.set_state(state);
          // Free text from outside: escaped and cut short where it is logged.
          probe.set_detail(state == unisched::v1::UNHEALTHY
                               ? "listing nodes failed (503)\x1b[2J" + std::string(10'000, 'x')
                               : "");
          unisched::v1::HealthStatus status;
          stub->HealthCheck(&context, probe, &status);
          if (status.snapshot_wanted()) {  // as any agent: the whole state when asked
            grpc::ClientContext push;
            unisched::v1::ClusterSnapshot whole;
            whole.set_cluster_id("blind");
            whole.set_epoch(1);
            whole.set_version(1);
            *whole.add_nodes() = first.node_deltas(0).node();
            unisched::v1::Ack ack;
            stub->PushFullSnapshot(&push, whole, &ack);
          }
          return hub.has_health("blind", healthy);
        },
        what, std::chrono::seconds(30));
  };
  beat_until(unisched::v1::HEALTHY, true, "healthy once registered");
  beat_until(unisched::v1::UNHEALTHY, false, "unhealthy while its agent says so");
  BOOST_TEST(hub.process->output().find('\x1b') == std::string::npos);
  BOOST_TEST(hub.process->output().find(std::string(300, 'x')) == std::string::npos);
  BOOST_TEST(hub.process->output().find("its agent reports: listing nodes failed (503)\\x1b[2J") !=
             std::string::npos);
  beat_until(unisched::v1::HEALTHY, true, "healthy again when it says so");
  BOOST_TEST(hub.process->stop() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
