// The single-node runtime: simulated clusters, their metadata agents, one ClusterActor per
// cluster and the supervisor, in one actor system, for a fixed time. What `unisched run` runs.
#pragma once

#include <caf/fwd.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "actors/agent_actor.hpp"
#include "actors/quota_actor.hpp"
#include "actors/scheduler_actor.hpp"
#include "actors/supervisor.hpp"
#include "adapters/simulated_cluster.hpp"
#include "messages/unisched.pb.h"
#include "model/cluster_profile.hpp"
#include "runtime/local_waits.hpp"

namespace unisched::runtime {

/// Cuts one cluster's agent off from the centre for a while, as a network partition would.
struct Partition {
  std::string cluster_id;
  std::chrono::milliseconds start{0};
  std::chrono::milliseconds length{0};
};

struct RunOptions {
  int clusters = 0;               ///< 0: one per profile; more: profiles are reused
  int64_t nodes_per_cluster = 0;  ///< 0: as each profile says
  std::chrono::milliseconds duration{10'000};
  std::chrono::milliseconds progress_interval{1'000};
  uint64_t seed = 1;
  adapters::SimulationOptions simulation;  ///< rates; seed and node count are set per cluster
  /// Real clusters joined beside the simulated ones (a Slurm cluster, say), already connected.
  std::vector<std::shared_ptr<adapters::ClusterAdapter>> real_clusters;
  actors::AgentSettings agent;
  actors::SupervisorSettings supervisor;
  std::vector<Partition> partitions;
  int schedulers = 2;               ///< SchedulerActors racing on the same clusters
  std::string policy = "balanced";  ///< a policy preset
  /// Scorers and weights replacing the preset's, e.g. {{"gpu-packing", 2.0}}; empty: the preset's.
  std::vector<std::pair<std::string, double>> scorers;
  /// Nodes scored per replica (policy::Policy::node_sample; 0: every node); nullopt: the
  /// adaptive rule (policy::adaptive_node_sample).
  std::optional<size_t> node_sample;
  actors::SchedulerSettings scheduling;
  /// Opens another door into the running centre (e.g. gRPC for outside agents), given the
  /// actor system, the supervisor and the schedulers once they run; returns how to close it.
  std::function<std::function<void()>(caf::actor_system&, const actors::SupervisorActor& supervisor,
                                      const std::vector<actors::SchedulerActor>& schedulers)>
      open_door;
  /// Quotas the workload's requests are charged to (each request goes to the next quota's queue
  /// in turn); empty: no quota ledger.
  std::vector<v1::QuotaDefinition> quotas;
  double requests_per_second = 20.0;  ///< synthetic workload; 0: none
  std::chrono::milliseconds mean_runtime{3'000};
  LocalWaits waits;  ///< on the run's actors, when a report or progress line is taken
};

struct RunReport {
  std::vector<v1::ClusterSummary> clusters;
  v1::WorkloadReport workload;
  v1::SchedulerSummary scheduling;  ///< summed over every scheduler
  uint64_t overcommits = 0;         ///< nodes whose cluster holds more than it can (must be 0)
  v1::QuotaList quotas;             ///< the ledger at the end (with quotas)
  uint64_t deltas_applied = 0;
  std::chrono::milliseconds elapsed{0};
  std::vector<std::string> problems;  ///< clusters that could not be queried at the end
};

/// How a run stands, every progress interval.
struct RunProgress {
  std::chrono::milliseconds elapsed{0};
  std::vector<v1::ClusterSummary> clusters;
  /// Requests so far, decided and waiting; nullopt when the client did not answer in time.
  std::optional<v1::WorkloadReport> workload;
  double decisions_per_second = 0;  ///< since the last progress
};

/// The cluster profiles a run uses: `count` of them (0: all), reusing `profiles` in turn and
/// suffixing the clusterIDs of repeats ("a100-uswest-2").
std::vector<model::ClusterResourceProfile> plan_clusters(
    const std::vector<model::ClusterResourceProfile>& profiles, int count);

/// Runs until `options.duration` has passed; `progress` is called every progress interval.
RunReport run_single_node(const std::vector<model::ClusterResourceProfile>& clusters,
                          const RunOptions& options,
                          const std::function<void(const RunProgress&)>& progress);

}  // namespace unisched::runtime
