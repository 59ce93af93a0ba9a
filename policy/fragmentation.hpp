// GPU fragmentation as the FGD paper measures it ("Beware of Fragmentation", ATC'23): the idle
// GPU share of a node that the typical pods of a workload could not use. Plain C++ over node
// states; the FGD policy and trace replay both build on it.
#pragma once

#include <absl/types/span.h>

#include <cstdint>
#include <string>
#include <vector>

#include "model/node_state.hpp"

namespace unisched::policy {

/// One pod shape of a workload and how often it comes.
struct PodShape {
  int64_t cpu_milli = 0;
  int32_t gpus = 0;                 ///< 0: no GPU
  int32_t gpu_milli = 0;            ///< per GPU: below 1000 a share of one
  std::vector<std::string> models;  ///< allowed GPU models; empty: any
  double weight = 0;                ///< share of the workload, 0..1
  bool operator==(const PodShape& other) const {
    return cpu_milli == other.cpu_milli && gpus == other.gpus && gpu_milli == other.gpu_milli &&
           models == other.models;
  }
};

/// The shapes that make up `coverage` (0..1] of `pods`, most frequent first, with weights
/// renormalised to sum to 1. Equally frequent shapes go larger first (cpu, then share, GPUs,
/// models), as the paper's simulator orders them. The weights of `pods` are ignored.
std::vector<PodShape> typical_shapes(const std::vector<PodShape>& pods, double coverage = 0.95);

/// The same from shapes already counted: each distinct shape once, its weight how many pods
/// had it.
std::vector<PodShape> typical_of_counts(std::vector<PodShape> shapes, double coverage = 0.95);

/// Whether a pod of `shape` fits on `node` now: cpu, and an allowed device with the share idle
/// (or `gpus` wholly idle devices).
bool shape_fits(const model::NodeState& node, const PodShape& shape);

/// The node's fragmentation: over the shapes, weighted, the idle GPU milli a pod of the shape
/// could not use there. That is every idle milli when the shape cannot run there at all or needs
/// no GPU; otherwise the idle milli of the devices with less idle than the shape's share.
double node_fragmentation(const model::NodeState& node, const std::vector<PodShape>& shapes);

/// The fragmentation `node` would have with `cpu_milli` more allocated and `device_milli[i]` more
/// of device `devices[i]`: node_fragmentation of the node after a placement, without copying it.
double fragmentation_after(const model::NodeState& node, const std::vector<PodShape>& shapes,
                           int64_t cpu_milli, absl::Span<const int32_t> devices,
                           absl::Span<const int32_t> device_milli);

/// Idle milli-GPU of a device (1000, less what is allocated).
int32_t idle_milli(const model::Device& device);

/// Idle milli-GPU of a node: its devices' summed.
int64_t idle_gpu_milli(const model::NodeState& node);

}  // namespace unisched::policy
