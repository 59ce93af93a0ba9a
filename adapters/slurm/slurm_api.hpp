// The one room that talks to slurmctld, through the C API Slurm ships (libslurm): nodes are
// loaded with the time of the last load, so an unchanged cluster answers "no change" cheaply
// instead of resending every node. libslurm reads one slurm.conf per process.
#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include "adapters/slurm/slurm_node.hpp"

namespace unisched::adapters::slurm {

/// A job as the adapter follows it.
struct SlurmJob {
  uint32_t id = 0;
  std::string comment;  ///< unisched's jobs carry their placement here
  std::string state;    ///< "PENDING", "RUNNING", "COMPLETED", "FAILED", "CANCELLED", ...
  std::string nodes;    ///< where it runs
  std::string reason;   ///< why it waits or failed ("Resources", "None", ...)
};

/// A batch job pinned to one node.
struct JobRequest {
  std::string name;
  std::string comment;
  std::string node;
  std::string gres;  ///< tres_per_node: "gres:gpu:a100:2"; empty: no GPU
  int64_t cpus = 1;
  int64_t memory_mb = 0;
  std::string script;  ///< "#!/bin/sh\n..."
  std::string work_dir;
};

class SlurmApi {
 public:
  /// Reads `slurm_conf` (empty: $SLURM_CONF or Slurm's default) and asks slurmctld for its
  /// cluster name; an error says why it cannot be reached.
  static absl::StatusOr<SlurmApi> open(const std::string& slurm_conf);

  /// Every node, or nullopt when nothing changed since the previous call (Slurm still reports
  /// pings as changes: callers compare).
  absl::StatusOr<std::optional<std::vector<SlurmNode>>> nodes_if_changed();

  /// Every job, or nullopt when nothing changed since the previous call.
  absl::StatusOr<std::optional<std::vector<SlurmJob>>> jobs_if_changed();

  /// Submits `request` as the calling user; the job id, or Slurm's reason for refusing it
  /// ("Requested node configuration is not available").
  absl::StatusOr<uint32_t> submit(const JobRequest& request);

  /// Cancels job `id` (SIGKILL); a job that already ended is no error.
  absl::Status cancel(uint32_t id);

  const std::string& cluster_name() const { return cluster_name_; }

 private:
  SlurmApi() = default;

  std::string cluster_name_;
  std::time_t nodes_updated_ = 0;
  std::time_t jobs_updated_ = 0;
};

}  // namespace unisched::adapters::slurm
