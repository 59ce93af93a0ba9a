// Micro-benchmarks of the hot paths (Google Benchmark): quantity parsing, decoding a request
// with many labels, applying a delta to a view, rebuilding a view from a snapshot, both ends of a
// full resync, a commit and an agent's update beside many held reservations, one scheduling
// decision over one cluster, one sampled decision over a hundred, and both ends of an agent's
// update on a link. Built with the project, never run by the tests:
// ./build/tools/bench/micro/unisched-micro-bench
#include <benchmark/benchmark.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cores/cluster_core.hpp"
#include "messages/convert.hpp"
#include "messages/node_wire.hpp"
#include "messages/snapshot_parts.hpp"
#include "model/cluster_view.hpp"
#include "model/manifest.hpp"
#include "model/quantity.hpp"
#include "policy/framework.hpp"
#include "policy/pipeline.hpp"

namespace {

using namespace unisched;

model::NodeState gpu_node(int index, int64_t allocated_cpu_milli) {
  model::NodeState node;
  node.name = "node-" + std::to_string(index);
  node.node_group = "a100";
  node.allocatable_cpu_milli = 96'000;
  node.allocatable_memory_bytes = int64_t{1024} << 30;
  node.max_pods = 110;
  node.allocated_cpu_milli = allocated_cpu_milli;
  for (int d = 0; d < 8; ++d) {
    model::Device device;
    device.model = "NVIDIA-A100-SXM4-80GB";
    device.memory_bytes = int64_t{80} << 30;
    device.interconnect = model::Interconnect::NVLink;
    device.allocated_milli = (index + d) % 3 == 0 ? 1000 : 0;
    node.devices.push_back(device);
  }
  return node;
}

std::vector<model::NodeState> cluster_nodes(int count) {
  std::vector<model::NodeState> nodes;
  for (int i = 0; i < count; ++i) {
    nodes.push_back(gpu_node(i, (i % 7) * 4'000));
  }
  return nodes;
}

/// An agent's snapshot of cluster "c1" at epoch 1, version 0, of `count` GPU nodes.
model::ViewSnapshot cluster_snapshot(int count) {
  model::ViewSnapshot snapshot;
  snapshot.cluster_id = "c1";
  snapshot.epoch = 1;
  for (model::NodeState& node : cluster_nodes(count)) {
    snapshot.nodes.push_back(std::make_shared<const model::NodeState>(std::move(node)));
  }
  return snapshot;
}

/// A request from the spec part of a manifest (indented by two spaces).
model::SchedulingRequestSpec request_spec(const std::string& spec) {
  const auto decoded = model::decode_manifest(
      {"apiVersion: scheduling.cluster.io/v1\nkind: SchedulingRequest\nmetadata:\n  name: r\n"
       "spec:\n" +
           spec,
       1});
  return std::get<model::SchedulingRequest>(*decoded.manifest).spec;
}

void quantity_parse(benchmark::State& state) {
  const std::vector<std::string> inputs = {"1500m", "64Gi", "1.5e3", "250M", "2", "0.5"};
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(model::Quantity::parse(inputs[i++ % inputs.size()]));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(quantity_parse);

/// Decoding a request with N labels: linear in N (the duplicate-key check once made it quadratic).
void decode_labels(benchmark::State& state) {
  std::string text =
      "apiVersion: scheduling.cluster.io/v1\nkind: SchedulingRequest\nmetadata:\n"
      "  name: r\n  labels:\n";
  for (int64_t i = 0; i < state.range(0); ++i) {
    text += "    k" + std::to_string(i) + ": v\n";
  }
  text += "spec:\n  replicas: 1\n";
  for (auto _ : state) {
    benchmark::DoNotOptimize(model::decode_manifest({text, 1}));
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(decode_labels)->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMillisecond);

/// Applying one update of 100 node changes to a view of N nodes; items are node deltas.
void view_apply(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  model::ClusterView view;
  view.replace(cluster_nodes(nodes), {}, model::Allocation::MayExceed);
  std::mt19937 random(1);
  std::vector<std::vector<model::NodeChange>> updates(16);
  for (auto& update : updates) {
    for (int d = 0; d < 100; ++d) {
      update.push_back(
          {model::NodeChangeKind::Update, gpu_node(static_cast<int>(random() % nodes),
                                                   static_cast<int64_t>(random() % 24) * 4'000)});
    }
  }
  size_t next = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        view.apply(updates[next++ % updates.size()], model::Allocation::MayExceed));
  }
  state.SetItemsProcessed(state.iterations() * 100);
}
BENCHMARK(view_apply)->Arg(1'000)->Arg(5'000);

/// An agent's update of N node changes (GPU nodes, 8 devices each), as shared model states.
model::ViewUpdate agent_update(int changes) {
  model::ViewUpdate update;
  update.cluster_id = "c1";
  update.epoch = 1;
  update.base_version = 41;
  update.version = 42;
  for (int d = 0; d < changes; ++d) {
    update.changes.push_back(
        {model::NodeChangeKind::Update,
         std::make_shared<const model::NodeState>(gpu_node(d, (d % 24) * 4'000))});
  }
  return update;
}

/// Writing an update of N node changes to its bytes, as an agent does for a link; items are
/// node deltas.
void update_write(benchmark::State& state) {
  const model::ViewUpdate update = agent_update(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    std::string bytes;
    messages::write_update_bytes(update, bytes);
    benchmark::DoNotOptimize(bytes.data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(update_write)->Arg(100);

/// Reading an update of N node changes from its bytes, as the centre does from a link; items
/// are node deltas.
void update_read(benchmark::State& state) {
  std::string bytes;
  messages::write_update_bytes(agent_update(static_cast<int>(state.range(0))), bytes);
  for (auto _ : state) {
    benchmark::DoNotOptimize(messages::read_update_bytes(bytes));
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(update_read)->Arg(100);

/// Rebuilding a view of N nodes from a full snapshot (a resync); items are nodes.
void view_replace(benchmark::State& state) {
  const auto nodes = cluster_nodes(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    model::ClusterView view;
    benchmark::DoNotOptimize(view.replace(nodes, {}, model::Allocation::MayExceed));
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(view_replace)->Arg(5'000)->Arg(50'000)->Unit(benchmark::kMillisecond);

/// A full snapshot of N nodes as it is served to a link (an agent in another process, the gRPC
/// view service): to the wire's types, split into the parts kept for later pulls, the first
/// handed out; items are nodes.
void snapshot_serve(benchmark::State& state) {
  model::ViewSnapshot snapshot = cluster_snapshot(static_cast<int>(state.range(0)));
  messages::SnapshotParts parts;
  for (auto _ : state) {
    ++snapshot.version;
    benchmark::DoNotOptimize(parts.start(messages::to_proto(snapshot)));
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(snapshot_serve)->Arg(5'000)->Unit(benchmark::kMillisecond);

/// The same snapshot taken by a ClusterActor's core from a link (from the wire's types, checked,
/// its view rebuilt, node revisions reset), one newer version after another; items are nodes.
void snapshot_take(benchmark::State& state) {
  v1::ClusterSnapshot message =
      messages::to_proto(cluster_snapshot(static_cast<int>(state.range(0))));
  actors::ClusterCore core("c1");
  for (auto _ : state) {
    message.set_version(message.version() + 1);
    auto taken = messages::from_proto(message);
    if (!taken || core.on_snapshot(std::move(*taken)).problem) {
      state.SkipWithError("the snapshot was refused");
      break;
    }
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(snapshot_take)->Arg(5'000)->Unit(benchmark::kMillisecond);

/// The same snapshot served by an agent in the centre's process: its published states shared
/// (split into the parts it keeps, the first handed out); items are nodes.
void snapshot_serve_shared(benchmark::State& state) {
  model::ViewSnapshot snapshot = cluster_snapshot(static_cast<int>(state.range(0)));
  messages::AgentSnapshotParts parts;
  for (auto _ : state) {
    ++snapshot.version;
    benchmark::DoNotOptimize(parts.start(snapshot));
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(snapshot_serve_shared)->Arg(5'000)->Unit(benchmark::kMillisecond);

/// ...and taken by a ClusterActor's core as it arrives in one process (collected, checked, its
/// view rebuilt over the shared states, node revisions reset); items are nodes.
void snapshot_take_shared(benchmark::State& state) {
  model::ViewSnapshot snapshot = cluster_snapshot(static_cast<int>(state.range(0)));
  actors::ClusterCore core("c1");
  messages::AgentSnapshotAssembler assembler;
  for (auto _ : state) {
    ++snapshot.version;
    auto taken = assembler.add(messages::share_snapshot(snapshot));
    if (!taken || !taken.value() || core.on_snapshot(std::move(*taken.value())).problem) {
      state.SkipWithError("the snapshot was refused");
      break;
    }
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(snapshot_take_shared)->Arg(5'000)->Unit(benchmark::kMillisecond);

/// Commits one replica of request `request_id` (placement "<id>/0") at the core's revision;
/// whether the core accepted it.
bool commit_replica(actors::ClusterCore& core, const std::string& request_id,
                    const std::string& node, int64_t cpu_milli) {
  actors::Commit commit;
  commit.request_id = request_id;
  commit.revision = core.revision();
  commit.reservations.push_back({request_id + "/0", node, cpu_milli, 0, {}, {}, {}, {}});
  return core.commit(commit, actors::CommitMode::ClusterRevision).status ==
         actors::CommitStatus::Accepted;
}

/// A ClusterActor's core over 1,000 GPU nodes, healthy, holding `held` reservations of one cpu
/// each (orders its agent has not confirmed yet), spread over the nodes.
std::unique_ptr<actors::ClusterCore> core_holding(int held) {
  auto core = std::make_unique<actors::ClusterCore>("c1");
  model::ViewSnapshot snapshot = cluster_snapshot(1'000);
  snapshot.version = 1;
  if (core->on_snapshot(std::move(snapshot)).problem) {
    return nullptr;
  }
  core->set_healthy(true);
  for (int i = 0; i < held; ++i) {
    if (!commit_replica(*core, "held-" + std::to_string(i), "node-" + std::to_string(i % 1'000),
                        1'000)) {
      return nullptr;
    }
  }
  return core;
}

/// One commit of one replica and its release, beside N held reservations; items are commits.
void commit_among_held(benchmark::State& state) {
  const auto core = core_holding(static_cast<int>(state.range(0)));
  if (!core) {
    state.SkipWithError("the core refused the setup");
    return;
  }
  uint64_t n = 0;
  for (auto _ : state) {
    const std::string request = "r" + std::to_string(++n);
    if (!commit_replica(*core, request, "node-" + std::to_string(n % 1'000), 2'000)) {
      state.SkipWithError("the commit was refused");
      break;
    }
    core->release({request + "/0"});
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(commit_among_held)->Arg(0)->Arg(1'000)->Arg(10'000);

/// An agent's update of 100 nodes' cpu, beside N held reservations; items are node changes.
void update_among_held(benchmark::State& state) {
  const auto core = core_holding(static_cast<int>(state.range(0)));
  if (!core) {
    state.SkipWithError("the core refused the setup");
    return;
  }
  const std::vector<model::NodeState> nodes = cluster_nodes(1'000);
  uint64_t version = 1;
  for (auto _ : state) {
    model::ViewUpdate update;
    update.cluster_id = "c1";
    update.epoch = 1;
    update.base_version = version;
    update.version = ++version;
    for (int i = 0; i < 100; ++i) {
      const size_t at = (version * 100 + static_cast<size_t>(i)) % nodes.size();
      model::NodeState node = nodes[at];
      node.allocated_cpu_milli = static_cast<int64_t>(version % 8) * 1'000;
      update.changes.push_back(model::share({model::NodeChangeKind::Update, std::move(node)}));
    }
    if (core->on_update(std::move(update)).status != actors::AckStatus::Applied) {
      state.SkipWithError("the update was refused");
      break;
    }
  }
  state.SetItemsProcessed(state.iterations() * 100);
}
BENCHMARK(update_among_held)->Arg(0)->Arg(1'000)->Arg(10'000);

/// One decision (filters and scorers) for a 2-replica 4-GPU request over one cluster of N nodes.
void decide_one_cluster(benchmark::State& state) {
  model::ClusterView view;
  view.replace(cluster_nodes(static_cast<int>(state.range(0))), {}, model::Allocation::MayExceed);
  const policy::ClusterInfo info{"a100", "us-west", "us-west-2a",
                                 model::MachineType::VirtualMachine, true};
  const std::vector<policy::ClusterCandidate> candidates = {{&info, &view}};
  const auto request = request_spec(
      "  replicas: 2\n  resources:\n    cpu: \"16\"\n    memory: 128Gi\n"
      "    accelerators:\n      - model: NVIDIA-A100-SXM4-80GB\n        count: 4\n");
  std::string error;
  const auto policy = policy::Registry::builtin().preset("balanced", error);
  for (auto _ : state) {
    benchmark::DoNotOptimize(policy::decide(request, candidates, *policy));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(decide_one_cluster)->Arg(1'000)->Arg(5'000)->Unit(benchmark::kMicrosecond);

/// One decision as above with a node sample of 32, over N clusters of 1,000 nodes each.
void decide_sampled(benchmark::State& state) {
  const int clusters = static_cast<int>(state.range(0));
  std::vector<model::ClusterView> views(static_cast<size_t>(clusters));
  std::vector<policy::ClusterInfo> infos;
  for (int c = 0; c < clusters; ++c) {
    views[static_cast<size_t>(c)].replace(cluster_nodes(1'000), {}, model::Allocation::MayExceed);
    infos.push_back({"c" + std::to_string(c), "us-west", "us-west-2a",
                     model::MachineType::VirtualMachine, true});
  }
  std::vector<policy::ClusterCandidate> candidates;
  for (int c = 0; c < clusters; ++c) {
    candidates.push_back({&infos[static_cast<size_t>(c)], &views[static_cast<size_t>(c)]});
  }
  const auto request = request_spec(
      "  resources:\n    cpu: \"2\"\n    memory: 8Gi\n"
      "    accelerators:\n      - model: NVIDIA-A100-SXM4-80GB\n        count: 1\n");
  std::string error;
  auto policy = policy::Registry::builtin().preset("balanced", error);
  policy->node_sample = 32;
  uint64_t seed = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(policy::decide(request, candidates, *policy, ++seed));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(decide_sampled)->Arg(100)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
