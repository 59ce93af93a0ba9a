// SchedulingRequest (scheduling.cluster.io/v1): work to place, per replica, with its placement
// constraints. Field-by-field reference and defaults: config/README.md.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/field_error.hpp"
#include "model/krm_common.hpp"
#include "model/latency.hpp"

namespace unisched::model {

struct AcceleratorRequest {
  AcceleratorType type = AcceleratorType::GPU;  ///< default GPU; derived from `resource`
  std::string resource;  ///< manifest `type` as a resource name: only devices of it; empty: any
  std::string model;     ///< empty: any model of this type (matched by model_matches)
  std::vector<std::string> models;  ///< manifest `models`: any one of these (not with `model`)
  int64_t count = 0;  ///< whole devices, >= 1, all on one node; required unless `share` is given
  /// Manifest `share` (e.g. 0.46 or 460m): that part of one device, which other work may share;
  /// above 0 and below 1, with count 1 (its default then). Absent: whole devices.
  std::optional<Quantity> share;
  std::optional<Quantity> min_memory_per_device;  ///< manifest field minMemoryPerGPU
  std::optional<Interconnect> topology;           ///< required link between the devices
  int32_t min_link_generation = 0;                ///< "NVLink>=4" or "NVLink-4": 4; 0: any
};

/// What one replica needs.
/// The models an accelerator request accepts (`model` or `models`); empty: any.
std::vector<std::string> accepted_models(const AcceleratorRequest& accelerator);

/// The share of one device a request takes, in milli (1..999), or 1000 for whole devices.
int32_t milli_per_device(const AcceleratorRequest& accelerator);

struct ResourceRequest {
  Quantity cpu;     ///< >= 0
  Quantity memory;  ///< >= 0
  std::vector<AcceleratorRequest> accelerators;
  std::vector<int64_t> host_ports;  ///< 1..65535, unique
};

/// A set of regions, zones and clusters; an empty list matches anything.
struct ClusterSelector {
  std::vector<std::string> regions;
  std::vector<std::string> zones;
  std::vector<std::string> clusters;
  bool empty() const { return regions.empty() && zones.empty() && clusters.empty(); }
};

struct StorageRequirement {
  std::string storage_class;         ///< manifest field `class`, required
  std::optional<Quantity> capacity;  ///< bytes, >= 0
};

struct PlacementSpec {
  ClusterSelector affinity;       ///< only clusters matching every non-empty list
  ClusterSelector anti_affinity;  ///< never clusters matching any listed value
  std::optional<LatencyBound> max_latency;
  std::optional<StorageRequirement> storage;
  std::optional<MachineType> machine_type;
};

/// How several replicas are placed across clusters.
enum class DistributionMode {
  Spread,    ///< over every fitting cluster, by weight or by free capacity (the default)
  Together,  ///< all replicas in one cluster
};

inline constexpr EnumSpellings<DistributionMode, 2> kDistributionModes = {{
    {DistributionMode::Spread, "Spread"},
    {DistributionMode::Together, "Together"},
}};

struct ClusterWeight {
  std::string cluster;  ///< required, a clusterID
  int64_t weight = 0;   ///< required, >= 1
};

struct DistributionSpec {
  DistributionMode mode = DistributionMode::Spread;
  bool gang = false;                   ///< all replicas placed or none
  std::vector<ClusterWeight> weights;  ///< Spread only; default: by free capacity
};

struct SchedulingRequestSpec {
  int64_t replicas = 1;       ///< default 1, 1..100000
  int64_t priority = 0;       ///< default 0, a 32-bit integer; higher is scheduled first
  std::string queue;          ///< the tenant's queue its SchedulingQuota covers; empty: none
  ResourceRequest resources;  ///< required
  PlacementSpec placement;
  DistributionSpec distribution;
  /// Manifest field `template`: the Kubernetes PodTemplateSpec each replica runs, as compact
  /// JSON (model/pod_template.hpp); empty: the adapter's default workload.
  std::string pod_template;
};

struct SchedulingRequest {
  ObjectMeta metadata;
  SchedulingRequestSpec spec;
};

/// Checks ranges, names and contradictions (e.g. a region both required and forbidden). The
/// request is usable only when the returned list is empty.
FieldErrors validate_and_default(SchedulingRequest& request);

}  // namespace unisched::model
