// The one room that talks to slurmctld, through the C API Slurm ships (libslurm): nodes are
// loaded with the time of the last load, so an unchanged cluster answers "no change" cheaply
// instead of resending every node. libslurm reads one slurm.conf per process.
#pragma once

#include <absl/status/statusor.h>

#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include "adapters/slurm/slurm_node.hpp"

namespace unisched::adapters::slurm {

class SlurmApi {
 public:
  /// Reads `slurm_conf` (empty: $SLURM_CONF or Slurm's default) and asks slurmctld for its
  /// cluster name; an error says why it cannot be reached.
  static absl::StatusOr<SlurmApi> open(const std::string& slurm_conf);

  /// Every node, or nullopt when nothing changed since the previous call (Slurm still reports
  /// pings as changes: callers compare).
  absl::StatusOr<std::optional<std::vector<SlurmNode>>> nodes_if_changed();

  const std::string& cluster_name() const { return cluster_name_; }

 private:
  SlurmApi() = default;

  std::string cluster_name_;
  std::time_t nodes_updated_ = 0;
};

}  // namespace unisched::adapters::slurm
