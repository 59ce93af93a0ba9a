// A Slurm node as the adapter reads it (copied out of libslurm's node_info_t, so that this
// translation needs no Slurm include and is tested without daemons), and the node state the
// centre holds for it.
#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <string>
#include <vector>

#include "model/node_state.hpp"

namespace unisched::adapters::slurm {

struct SlurmNode {
  std::string name;
  int64_t cpus = 0;
  int64_t alloc_cpus = 0;
  int64_t real_memory_mb = 0;
  int64_t alloc_memory_mb = 0;
  std::string gres;       ///< configured: "gpu:a100:4,gpu:v100:2"
  std::string gres_used;  ///< "gpu:a100:2(IDX:0-1),gpu:v100:0(IDX:N/A)"
  std::string state;      ///< base state: "IDLE", "MIXED", "ALLOCATED", "DOWN", ...
  bool drain = false;     ///< DRAIN/DRAINING/DRAINED
  bool not_responding = false;
  std::string reason;      ///< why it is down or drained
  std::string partitions;  ///< "main,gpu"
  std::string features;    ///< "nvlink,ib"

  bool operator==(const SlurmNode& other) const;
};

/// The label a node's partitions are listed in ("main,gpu"), and one per feature.
inline constexpr const char* kPartitionsLabel = "slurm.schedmd.com/partitions";
inline constexpr const char* kFeatureLabelPrefix = "feature.slurm.schedmd.com/";

/// The centre's view of `node`: cpus and memory with what is allocated, one device per GPU of
/// each GRES type (its model the type, "a100"; allocated as Slurm's indexes say), schedulable
/// only when its state is IDLE, MIXED or ALLOCATED and it is not draining (else a NoSchedule
/// taint carries the reason), partitions and features as labels. An error names the node and
/// the field Slurm sent that cannot be read.
absl::StatusOr<model::NodeState> node_state_of(const SlurmNode& node);

}  // namespace unisched::adapters::slurm
