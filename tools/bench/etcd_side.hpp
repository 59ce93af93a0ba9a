// Bench scenario `etcd`: the work unisched's commit path and delta ingest do, run against a real
// etcd (Debian's etcd-server) in the same run, as Kubernetes and Karmada commit every binding and
// every status update through etcd with revision preconditions.
#pragma once

#include <cstdint>
#include <string>

namespace unisched::bench {

struct EtcdParameters {
  int nodes = 1000;        ///< keys, one per node
  int committers = 8;      ///< racing compare-and-set clients, each with its own connection
  int writers = 8;         ///< clients writing node status
  int seconds = 5;         ///< of each kind of work
  int status_bytes = 512;  ///< the size of one node status written
  bool in_memory = false;  ///< etcd's data directory on tmpfs (fsync costs nothing there)
  /// unisched's side: the schedulers' node sample (-1 the adaptive rule, which scores every
  /// node of this one cluster; 0 every node).
  int node_sample = -1;
};

struct EtcdResult {
  uint64_t commits = 0;    ///< compare-and-set transactions that succeeded
  uint64_t conflicts = 0;  ///< those whose revision had moved on (read again and retried)
  double commits_per_s = 0;
  double conflict_rate = 0;  ///< conflicts / attempts
  double commit_p50_ms = 0;  ///< one transaction, sent to answered
  double commit_p99_ms = 0;
  uint64_t status_puts = 0;
  double status_puts_per_s = 0;
  std::string problem;
};

/// Starts an etcd, runs the racing committers, then the status writers, and stops it.
EtcdResult etcd_side(const EtcdParameters& parameters);

}  // namespace unisched::bench
