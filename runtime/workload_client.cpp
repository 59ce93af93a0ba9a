#include "runtime/workload_client.hpp"

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>

#include <algorithm>
#include <map>

#include "messages/caf_types.hpp"

namespace unisched::runtime {
namespace {

using namespace unisched::atoms;

struct ClientData {
  std::vector<actors::SchedulerActor> schedulers;
  size_t next_scheduler = 0;
  std::map<std::string, actors::AgentActor> agents;
  v1::WorkloadReport report;
  std::vector<double> latencies_ms;
  static inline const char* name = "workload_client";
};

using Self = caf::stateful_actor<ClientData>;

double percentile(std::vector<double> values, double p) {
  if (values.empty()) {
    return 0;
  }
  std::sort(values.begin(), values.end());
  const auto index = static_cast<size_t>(p * static_cast<double>(values.size() - 1) + 0.5);
  return values[std::min(index, values.size() - 1)];
}

void record(Self* self, const v1::SchedulingDecision& decision,
            std::chrono::milliseconds runs_for) {
  v1::WorkloadReport& report = self->state.report;
  self->state.latencies_ms.push_back(static_cast<double>(decision.latency_us()) / 1000.0);
  switch (decision.status()) {
    case v1::SchedulingDecision::PLACED:
      report.set_placed(report.placed() + 1);
      break;
    case v1::SchedulingDecision::PARTIALLY_PLACED:
      report.set_partially_placed(report.partially_placed() + 1);
      break;
    default:
      report.set_unschedulable(report.unschedulable() + 1);
      for (const auto& diagnosis : decision.diagnoses()) {
        (*report.mutable_unschedulable_by_reason())[diagnosis.plugin()] += 1;
      }
  }
  if (decision.replicas_size() == 0) {
    return;
  }
  // The work runs for a while, then each cluster's agent is told to finish its part.
  std::map<std::string, v1::ReleaseOrder> finished;
  for (const auto& replica : decision.replicas()) {
    v1::ReleaseOrder& order = finished[replica.cluster()];
    order.set_cluster_id(replica.cluster());
    order.add_placement_ids(replica.placement_id());
  }
  for (auto& [cluster, order] : finished) {
    self->delayed_send(self, runs_for, std::move(order));
  }
}

caf::behavior workload_client(Self* self, std::vector<actors::SchedulerActor> schedulers) {
  self->state.schedulers = std::move(schedulers);
  return {
      [=](submit_atom, const std::string& id, const model::SchedulingRequestSpec& spec,
          int64_t runs_for_ms) {
        auto& state = self->state;
        state.report.set_requests(state.report.requests() + 1);
        const actors::SchedulerActor& scheduler =
            state.schedulers[state.next_scheduler++ % state.schedulers.size()];
        self->request(scheduler, caf::infinite, submit_atom_v, id, spec)
            .then([=](v1::SchedulingDecision& decision) {
              record(self, decision, std::chrono::milliseconds(runs_for_ms));
            });
      },
      [=](const v1::ReleaseOrder& order) {
        const auto agent = self->state.agents.find(order.cluster_id());
        if (agent != self->state.agents.end()) {
          self->send(agent->second, order);
          self->state.report.set_completed(self->state.report.completed() +
                                           static_cast<uint64_t>(order.placement_ids_size()));
        }
      },
      [=](const v1::SchedulingDecision&) {
        // A refused replica placed again: its work was already counted by its first decision.
      },
      [=](bind_atom, const std::string& cluster, actors::AgentActor agent) {
        self->state.agents[cluster] = std::move(agent);
      },
      [=](summary_atom) {
        v1::WorkloadReport report = self->state.report;
        report.set_latency_p50_ms(percentile(self->state.latencies_ms, 0.50));
        report.set_latency_p99_ms(percentile(self->state.latencies_ms, 0.99));
        return report;
      },
  };
}

}  // namespace

caf::actor spawn_workload_client(caf::actor_system& system,
                                 const std::vector<actors::SchedulerActor>& schedulers) {
  return system.spawn(workload_client, schedulers);
}

}  // namespace unisched::runtime
