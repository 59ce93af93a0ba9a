// ClusterResourceProfile (scheduling.cluster.io/v1): what one cluster offers, as its adapter or
// its operator describes it. Field-by-field reference and defaults: config/README.md.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/bandwidth.hpp"
#include "model/field_error.hpp"
#include "model/krm_common.hpp"
#include "model/latency.hpp"

namespace unisched::model {

struct ComputeSpec {
  Quantity cpu;     ///< required, cores (e.g. "1000", "250m")
  Quantity memory;  ///< required, bytes (e.g. "4Ti")
};

struct NetworkSpec {
  std::optional<Bandwidth> bandwidth;   ///< e.g. "100Gbps"
  std::optional<LatencyBound> latency;  ///< e.g. "<1ms"
};

struct StorageSpec {
  std::string storage_class;  ///< manifest field `class`, required, DNS-1123 subdomain
  Quantity capacity;          ///< required, bytes, >= 0
};

struct TopologySpec {
  std::string region;      ///< label value
  std::string zone;        ///< label value
  std::string node_group;  ///< label value
};

struct Taint {
  std::string key;     ///< required, label key
  std::string value;   ///< label value
  std::string effect;  ///< required: NoSchedule, PreferNoSchedule or NoExecute
  bool operator==(const Taint& o) const {
    return key == o.key && value == o.value && effect == o.effect;
  }
};

/// The resources of each node of a node group.
struct NodeShape {
  Quantity cpu;                               ///< required, > 0
  Quantity memory;                            ///< required, > 0
  std::vector<AcceleratorSpec> accelerators;  ///< count is per node
  int64_t max_pods = 110;                     ///< default 110, as the kubelet's
};

struct NodeGroupSpec {
  std::string name;                           ///< required, DNS-1123 label, unique
  int64_t count = 0;                          ///< required, >= 1
  std::optional<MachineType> machine_type;    ///< default: spec.machineType
  std::string zone;                           ///< default: spec.topology.zone
  NodeShape node;                             ///< required
  std::map<std::string, std::string> labels;  ///< node labels
  std::vector<Taint> taints;
};

struct ClusterProfileSpec {
  std::string cluster_id;          ///< manifest field clusterID, required, DNS-1123 label
  std::string kubernetes_version;  ///< "v1.29.4" or "1.29"; empty when not Kubernetes
  std::string network_plugin;      ///< e.g. "cilium"; DNS-1123 label
  MachineType machine_type = MachineType::VirtualMachine;  ///< default VirtualMachine
  std::optional<ComputeSpec> compute;         ///< totals; derived from nodeGroups when omitted
  std::vector<AcceleratorSpec> accelerators;  ///< totals; derived from nodeGroups when omitted
  NetworkSpec network;
  std::vector<StorageSpec> storage;
  TopologySpec topology;
  std::optional<int64_t> node_count;  ///< default: sum of nodeGroups counts, else 1
  std::vector<NodeGroupSpec> node_groups;
};

struct ClusterResourceProfile {
  ObjectMeta metadata;
  ClusterProfileSpec spec;
};

/// Fills the documented defaults (derived totals, node count, inherited machine types) and
/// reports every problem: ranges, names, duplicates, and totals that disagree with node groups.
/// The profile is usable only when the returned list is empty.
FieldErrors validate_and_default(ClusterResourceProfile& profile);

}  // namespace unisched::model
