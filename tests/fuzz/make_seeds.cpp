// Writes the seed inputs of the fuzz targets that read binary formats (protobuf messages,
// operation sequences into ClusterCore, journal files) into CORPUS_ROOT/<target>/seed-*:
// well-formed examples for libFuzzer to mutate. Run again when the formats change:
//   build/tests/fuzz/make_fuzz_seeds tests/fuzz/corpus
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "messages/design_metadata.pb.h"
#include "messages/snapshot_parts.hpp"
#include "messages/unisched.pb.h"
#include "runtime/journal.hpp"

namespace {

namespace v1 = unisched::v1;
namespace fs = std::filesystem;

void write(const fs::path& dir, const std::string& name, const std::string& bytes) {
  fs::create_directories(dir);
  std::ofstream(dir / ("seed-" + name), std::ios::binary) << bytes;
}

void fill_node(v1::NodeState& node, const std::string& name, int gpus) {
  node.set_name(name);
  node.set_node_group("gpu");
  node.set_allocatable_cpu_milli(64000);
  node.set_allocatable_memory_bytes(int64_t{256} << 30);
  node.set_max_pods(110);
  node.set_allocated_cpu_milli(2000);
  node.set_allocated_memory_bytes(int64_t{4} << 30);
  node.set_pod_count(3);
  node.set_schedulable(true);
  (*node.mutable_labels())["topology.kubernetes.io/zone"] = "us-west-2a";
  node.add_host_ports_in_use(8080);
  auto* taint = node.add_taints();
  taint->set_key("nvidia.com/gpu");
  taint->set_effect("NoSchedule");
  for (int i = 0; i < gpus; ++i) {
    auto* device = node.add_accelerators();
    device->set_model("A100");
    device->set_memory_bytes(int64_t{80} << 30);
    device->set_topology_group(i / 4);
    device->set_allocated_milli(i == 0 ? 500 : 0);
    device->set_resource("nvidia.com/gpu");
  }
}

v1::ClusterSnapshot snapshot() {
  v1::ClusterSnapshot out;
  out.set_cluster_id("fuzz");
  out.set_epoch(1);
  out.set_version(1);
  fill_node(*out.add_nodes(), "node-a", 8);
  fill_node(*out.add_nodes(), "node-b", 0);
  return out;
}

/// An update of the fuzz cluster at `version`, without content yet.
v1::IncrementalUpdate update_at(uint64_t version) {
  v1::IncrementalUpdate out;
  out.set_cluster_id("fuzz");
  out.set_epoch(1);
  out.set_base_version(version - 1);
  out.set_version(version);
  return out;
}

v1::IncrementalUpdate update(uint64_t version, v1::NodeDelta::Op op, const std::string& node) {
  v1::IncrementalUpdate out = update_at(version);
  auto* delta = out.add_node_deltas();
  delta->set_op(op);
  fill_node(*delta->mutable_node(), node, op == v1::NodeDelta::REMOVE ? 0 : 4);
  out.add_applied_placements("train/0");
  auto* refused = out.add_refused_placements();
  refused->set_id("train/1");
  refused->set_reason("OutOfcpu");
  out.add_finished_placements("train/2");
  return out;
}

/// A node's usage alone, after the snapshot listed it.
v1::IncrementalUpdate usage_update(uint64_t version, const std::string& node) {
  v1::IncrementalUpdate out = update_at(version);
  auto* delta = out.add_node_deltas();
  delta->set_op(v1::NodeDelta::USAGE);
  v1::NodeUsage& usage = *delta->mutable_usage();
  usage.set_name(node);
  usage.set_allocated_cpu_milli(2000);
  usage.set_pod_count(1);
  for (int d = 0; d < 8; ++d) {
    usage.add_device_allocated_milli(d == 0 ? 500 : 0);
  }
  usage.add_host_ports_in_use(9000);
  return out;
}

v1::Placement placement(const std::string& id, const std::string& node) {
  v1::Placement out;
  out.set_id(id);
  out.set_node(node);
  out.set_cpu_milli(4000);
  out.set_memory_bytes(int64_t{8} << 30);
  out.add_devices(1);
  out.add_device_milli(500);
  out.add_host_ports(9000);
  return out;
}

::IncrementalUpdate design_update(int64_t version) {
  ::IncrementalUpdate out;
  out.set_clusterid("fuzz");
  out.set_version(version);
  auto* delta = out.add_nodedeltas();
  delta->set_op(version == 1 ? ::NodeDelta::ADD : ::NodeDelta::UPDATE);
  v1::NodeState node;
  fill_node(node, "node-a", 2);
  delta->mutable_node()->ParseFromString(node.SerializeAsString());  // same field numbers
  out.set_healthstatus("HEALTHY");
  return out;
}

std::string tagged(uint8_t tag, const std::string& bytes) {
  return std::string(1, char(tag)) + bytes;
}

/// One ClusterCore operation: [op][16-bit length][bytes].
std::string operation(uint8_t op, const std::string& bytes) {
  return std::string{char(op), char(bytes.size() & 0xff), char(bytes.size() >> 8)} + bytes;
}

void proto_convert_seeds(const fs::path& dir) {
  write(dir, "update-add", tagged(0, update(2, v1::NodeDelta::ADD, "node-c").SerializeAsString()));
  write(dir, "update-remove",
        tagged(0, update(3, v1::NodeDelta::REMOVE, "node-b").SerializeAsString()));
  write(dir, "update-usage", tagged(0, usage_update(2, "node-a").SerializeAsString()));
  write(dir, "snapshot", tagged(1, snapshot().SerializeAsString()));
  write(dir, "placement", tagged(2, placement("train/0", "node-a").SerializeAsString()));
  write(dir, "seed-start", tagged(3, design_update(1).SerializeAsString()));
  write(dir, "seed-update", tagged(4, design_update(2).SerializeAsString()));
}

void cluster_state_seeds(const fs::path& dir) {
  v1::CommitRequest commit;
  commit.set_cluster_id("fuzz");
  commit.set_request_id("train");
  commit.set_revision(1);
  *commit.add_placements() = placement("train/0", "node-a");
  v1::CommitRequest node_level = commit;
  node_level.set_node_level(true);
  (*node_level.mutable_node_revisions())["node-a"] = 1;
  v1::ReleaseOrder release;
  release.add_placement_ids("train/0");
  v1::HealthStatus position;
  position.set_epoch(1);
  position.set_version(3);
  const std::string start = operation(1, snapshot().SerializeAsString());
  write(dir, "commit-then-update",
        start + operation(2, commit.SerializeAsString()) +
            operation(0, update(2, v1::NodeDelta::UPDATE, "node-a").SerializeAsString()) +
            operation(6, "") + operation(3, release.SerializeAsString()));
  write(dir, "node-level-commit",
        start + operation(2, node_level.SerializeAsString()) +
            operation(0, update(2, v1::NodeDelta::REMOVE, "node-b").SerializeAsString()) +
            operation(5, position.SerializeAsString()) + operation(4, std::string(1, '\0')));
  std::string in_parts;
  for (const auto& part : unisched::messages::split_snapshot(snapshot(), {1})) {
    in_parts += operation(1, part.SerializeAsString());
  }
  write(dir, "snapshot-in-parts", in_parts + operation(2, commit.SerializeAsString()));
  write(dir, "usage-under-a-reservation",
        start + operation(2, commit.SerializeAsString()) +
            operation(0, usage_update(2, "node-a").SerializeAsString()));
  write(dir, "gap-then-resync",
        start + operation(0, update(3, v1::NodeDelta::ADD, "node-c").SerializeAsString()) +
            operation(7, "") + operation(1, snapshot().SerializeAsString()));
}

void journal_seeds(const fs::path& dir) {
  std::string journal(unisched::runtime::kJournalHeader);
  for (int i = 0; i < 3; ++i) {
    v1::RequestStatus status;
    status.set_request_id("train-" + std::to_string(i));
    status.set_phase(i == 0 ? v1::RequestStatus::PLACED : v1::RequestStatus::PENDING);
    status.set_manifest("apiVersion: scheduling.cluster.io/v1\nkind: SchedulingRequest\n");
    journal += unisched::runtime::encode_journal_record(status.SerializeAsString());
  }
  write(dir, "intact", journal);
  std::string damaged = journal;
  damaged[unisched::runtime::kJournalHeader.size() + 12] ^= 0x40;  // inside the first record
  write(dir, "damaged", damaged);
  write(dir, "torn-tail", journal.substr(0, journal.size() - 7));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " CORPUS_ROOT\n";
    return 2;
  }
  const fs::path root(argv[1]);
  proto_convert_seeds(root / "proto_convert");
  cluster_state_seeds(root / "cluster_state");
  journal_seeds(root / "journal");
  std::cout << "seeds written under " << root << "\n";
  return 0;
}
