#include "actors/core_summaries.hpp"

#include <algorithm>

namespace unisched::actors {

v1::ClusterSummary summarize(const ClusterCore& core) {
  const ClusterCounters& counters = core.counters();
  v1::ClusterSummary summary;
  summary.set_cluster_id(core.cluster_id());
  summary.set_epoch(core.position().epoch);
  summary.set_version(core.position().version);
  summary.set_nodes(core.view().size());
  summary.set_nodes_left_out(core.nodes_left_out());
  summary.set_updates_applied(counters.updates_applied);
  summary.set_deltas_applied(counters.deltas_applied);
  summary.set_reservations(core.reservations());
  summary.set_duplicates(counters.duplicates);
  summary.set_gaps(counters.gaps);
  summary.set_resyncs(counters.resyncs);
  summary.set_rejected(counters.rejected);
  summary.set_health_transitions(counters.health_transitions);
  summary.set_healthy(core.healthy());
  summary.set_allocatable_cpu_milli(
      model::saturated_int64(core.view().totals().allocatable_cpu_milli));
  summary.set_allocated_cpu_milli(model::saturated_int64(core.view().totals().allocated_cpu_milli));
  for (const auto& [model, totals] : core.view().accelerators()) {
    summary.set_devices(summary.devices() + static_cast<uint64_t>(totals.devices));
    summary.set_free_devices(summary.free_devices() + static_cast<uint64_t>(totals.free_devices));
    v1::ModelUsage& usage = *summary.add_models();
    usage.set_model(model);
    usage.set_devices(static_cast<uint64_t>(totals.devices));
    usage.set_free_devices(static_cast<uint64_t>(std::max<int64_t>(totals.free_devices, 0)));
  }
  summary.set_commits(counters.commits);
  summary.set_conflicts(counters.conflicts);
  summary.set_placements_confirmed(counters.placements_confirmed);
  summary.set_placements_refused(counters.placements_refused);
  return summary;
}

v1::AgentSummary summarize(const AgentCore& core) {
  const AgentCounters& counters = core.counters();
  v1::AgentSummary summary;
  summary.set_cluster_id(core.cluster_id());
  summary.set_epoch(core.epoch());
  summary.set_version(core.version());
  summary.set_observations(counters.observations);
  summary.set_changes_seen(counters.changes_seen);
  summary.set_updates_built(counters.updates_built);
  summary.set_deltas_sent(counters.deltas_sent);
  summary.set_coalesced(counters.coalesced);
  summary.set_snapshots(counters.snapshots);
  summary.set_relists(counters.relists);
  summary.set_placements_applied(counters.placements_applied);
  summary.set_placements_refused(counters.placements_refused);
  summary.set_pending_placements(core.pending_placements());
  return summary;
}

}  // namespace unisched::actors
