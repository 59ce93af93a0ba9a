// The live state of one node and of a cluster's shared resources, as a metadata agent observes
// them and the centre's ClusterView holds them. Exact integers: millicores, bytes, milli-devices.
#pragma once

#include <absl/container/inlined_vector.h>

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/cluster_profile.hpp"
#include "model/node_labels.hpp"
#include "model/symbol.hpp"

namespace unisched::model {

/// One accelerator device. The 8-byte fields come first and the small ones share the last eight
/// bytes, so that a device takes 32 bytes: a fit reads a node's devices, and a sampled node's
/// devices are most of the cache lines a draw fetches (see ClusterView::sample_each).
struct Device {
  Symbol model;     ///< interned: every device of a model shares its name
  Symbol resource;  ///< its Kubernetes resource name ("nvidia.com/gpu"); empty: unknown
  int64_t memory_bytes = 0;
  AcceleratorType type = AcceleratorType::GPU;
  Interconnect interconnect = Interconnect::PCIe;
  int16_t link_generation = 0;  ///< of `interconnect` ("NVLink-4": 4); 0: not known
  int16_t topology_group = 0;  ///< devices of one node sharing a group are linked by `interconnect`
  int16_t allocated_milli = 0;  ///< the share of the device in use: 0..1000 unless over-reported

  bool operator==(const Device& other) const {
    return type == other.type && resource == other.resource && model == other.model &&
           memory_bytes == other.memory_bytes && topology_group == other.topology_group &&
           interconnect == other.interconnect && link_generation == other.link_generation &&
           allocated_milli == other.allocated_milli;
  }
  bool operator!=(const Device& other) const { return !(*this == other); }
};

// A node holds its devices inline (NodeDevices): each byte here is eight in every node.
static_assert(sizeof(Device) <= 32, "a device's fields are laid out without padding");

/// The largest topology group, and the largest share of one device in milli that a view holds
/// (a cluster may report a device shared past 1000): what the device's 16-bit fields hold.
/// Wider values are refused where devices enter (messages/convert.hpp, apply_usage).
inline constexpr int32_t kMaxTopologyGroup =
    std::numeric_limits<decltype(Device::topology_group)>::max();
inline constexpr int32_t kMaxDeviceAllocatedMilli =
    std::numeric_limits<decltype(Device::allocated_milli)>::max();

inline constexpr int32_t kWholeDeviceMilli = 1000;

/// A node's devices, held inside the node for up to eight (a GPU server's usual count): a fit
/// reads them with the node's own fields, without following a pointer to another allocation.
/// A node of more spills them to the heap; a node of none pays the room.
using NodeDevices = absl::InlinedVector<Device, 8>;

/// The label of a node whose cluster hands out devices in whole units only (Kubernetes counts
/// extended resources so): no share of a device can be placed there.
inline constexpr const char* kWholeDevicesLabel = "unisched.io/whole-devices";

/// What a fit reads comes first (the devices held inside), then the name, so that a sampled node's
/// fit touches the lines up to the name rather than every one (see ClusterView::sample_each).
struct NodeState {
  int64_t allocatable_cpu_milli = 0;
  int64_t allocated_cpu_milli = 0;
  int64_t allocatable_memory_bytes = 0;
  int64_t allocated_memory_bytes = 0;
  int32_t max_pods = 0;
  int32_t pod_count = 0;
  bool schedulable = true;
  NodeDevices devices;
  std::vector<int32_t> host_ports_in_use;  ///< ascending, each once
  std::string name;
  std::string node_group;
  NodeLabels labels;  ///< interned: nodes alike share one set
  std::vector<Taint> taints;

  /// Devices with nothing allocated, per model.
  int32_t free_devices(const std::string& model) const;
  /// Devices with nothing allocated, of every model.
  int32_t free_devices() const;

  bool operator==(const NodeState& other) const;
  bool operator!=(const NodeState& other) const { return !(*this == other); }
};

/// Whether `node` carries kWholeDevicesLabel: "true".
bool counts_devices_whole(const NodeState& node);

/// What a node lacks to take one more pod, in the order it is checked.
enum class Shortfall { Unschedulable, PodSlot, Cpu, Memory, HostPort };

/// The first thing `node` lacks to take one more pod of `cpu_milli` and `memory_bytes` using
/// `host_ports`, or nullopt when it has room. `busy_port`, when given, receives the port in use.
std::optional<Shortfall> capacity_shortfall(const NodeState& node, int64_t cpu_milli,
                                            int64_t memory_bytes,
                                            const std::vector<int32_t>& host_ports,
                                            int32_t* busy_port = nullptr);

enum class NodeChangeKind { Add, Update, Remove };

/// One node added, replaced by its new state, or removed (only `node.name` matters then).
struct NodeChange {
  NodeChangeKind kind = NodeChangeKind::Update;
  NodeState node;
};

struct StorageUsage {
  std::string storage_class;
  int64_t capacity_bytes = 0;
  int64_t used_bytes = 0;
  bool operator==(const StorageUsage& o) const {
    return storage_class == o.storage_class && capacity_bytes == o.capacity_bytes &&
           used_bytes == o.used_bytes;
  }
};

/// What a cluster shares beyond its nodes.
struct ClusterResources {
  std::vector<StorageUsage> storage;
  std::optional<int64_t> latency_max_ns;  ///< the network latency bound, when known
  std::optional<uint64_t> bandwidth_bps;
  bool operator==(const ClusterResources& o) const {
    return storage == o.storage && latency_max_ns == o.latency_max_ns &&
           bandwidth_bps == o.bandwidth_bps;
  }
  bool operator!=(const ClusterResources& o) const { return !(*this == o); }
};

}  // namespace unisched::model
