#include "runtime/workload_client.hpp"

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include <algorithm>
#include <map>
#include <memory>

#include "actors/countdown.hpp"
#include "messages/caf_types.hpp"

namespace unisched::runtime {
namespace {

using namespace unisched::atoms;

struct ClientState {
  std::vector<actors::SchedulerActor> schedulers;
  std::chrono::milliseconds summary_wait{0};
  size_t next_scheduler = 0;
  std::map<std::string, actors::AgentActor> agents;
  // What each scheduler was given and answered: a scheduler's queue counts are read against
  // its own book, as of its answer.
  std::vector<v1::WorkloadReport> books;
  uint64_t completed = 0;
  std::vector<double> latencies_ms;
  static inline const char* name = "workload_client";
};

using Self = WorkloadClientActor::stateful_pointer<ClientState>;

double percentile(std::vector<double> values, double p) {
  if (values.empty()) {
    return 0;
  }
  std::sort(values.begin(), values.end());
  const auto index = static_cast<size_t>(p * static_cast<double>(values.size() - 1) + 0.5);
  return values[std::min(index, values.size() - 1)];
}

void record(Self self, v1::WorkloadReport& book, const v1::SchedulingDecision& decision,
            std::chrono::milliseconds runs_for) {
  self->state.latencies_ms.push_back(static_cast<double>(decision.latency_us()) / 1000.0);
  book.set_decided(book.decided() + 1);
  switch (decision.status()) {
    case v1::SchedulingDecision::PLACED:
      book.set_placed(book.placed() + 1);
      break;
    case v1::SchedulingDecision::PARTIALLY_PLACED:
      book.set_partially_placed(book.partially_placed() + 1);
      break;
    default:
      book.set_unschedulable(book.unschedulable() + 1);
      for (const auto& diagnosis : decision.diagnoses()) {
        (*book.mutable_unschedulable_by_reason())[diagnosis.plugin()] += 1;
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

/// Adds one scheduler's book, and its queues as it counted them, into `total`.
void add_book(v1::WorkloadReport& total, const v1::WorkloadReport& book) {
  total.set_requests(total.requests() + book.requests());
  total.set_decided(total.decided() + book.decided());
  total.set_placed(total.placed() + book.placed());
  total.set_partially_placed(total.partially_placed() + book.partially_placed());
  total.set_unschedulable(total.unschedulable() + book.unschedulable());
  total.set_lost(total.lost() + book.lost());
  total.set_waiting(total.waiting() + book.waiting());
  for (const auto& [reason, count] : book.unschedulable_by_reason()) {
    (*total.mutable_unschedulable_by_reason())[reason] += count;
  }
  for (const auto& [reason, count] : book.waiting_by_reason()) {
    (*total.mutable_waiting_by_reason())[reason] += count;
  }
  total.set_oldest_waiting_seconds(
      std::max(total.oldest_waiting_seconds(), book.oldest_waiting_seconds()));
}

/// Each scheduler's book with its queues. A scheduler answers after every decision it sent this
/// client before (messages between two actors keep their order), so its book as of the answer
/// plus what it still holds is everything it was given.
caf::result<v1::WorkloadReport> report(Self self) {
  auto promise = std::make_shared<caf::typed_response_promise<v1::WorkloadReport>>(
      self->make_response_promise<v1::WorkloadReport>());
  auto total = std::make_shared<v1::WorkloadReport>();
  const actors::Countdown one_done(self->state.schedulers.size(), [=] {
    total->set_completed(self->state.completed);
    total->set_latency_p50_ms(percentile(self->state.latencies_ms, 0.50));
    total->set_latency_p99_ms(percentile(self->state.latencies_ms, 0.99));
    promise->deliver(*total);
  });
  for (size_t i = 0; i < self->state.schedulers.size(); ++i) {
    self->request(self->state.schedulers[i], self->state.summary_wait, summary_atom_v)
        .then(
            [=](const v1::SchedulerSummary& summary) {
              v1::WorkloadReport book = self->state.books[i];
              for (const auto& [reason, count] : summary.undecided_by_reason()) {
                (*book.mutable_waiting_by_reason())[reason] += count;
                book.set_waiting(book.waiting() + count);
              }
              book.set_oldest_waiting_seconds(summary.oldest_undecided_seconds());
              add_book(*total, book);
              one_done();
            },
            [=](caf::error&) {
              v1::WorkloadReport book = self->state.books[i];
              const uint64_t unknown = book.requests() - book.decided() - book.lost();
              (*book.mutable_waiting_by_reason())["scheduler not answering"] += unknown;
              book.set_waiting(unknown);
              add_book(*total, book);
              one_done();
            });
  }
  return *promise;
}

WorkloadClientActor::behavior_type workload_client(Self self,
                                                   std::vector<actors::SchedulerActor> schedulers,
                                                   std::chrono::milliseconds summary_wait) {
  self->state.books.resize(schedulers.size());
  self->state.summary_wait = summary_wait;
  self->state.schedulers = std::move(schedulers);
  return {
      [=](submit_atom, const std::string& id, const model::SchedulingRequestSpec& spec,
          int64_t runs_for_ms) {
        auto& state = self->state;
        const size_t i = state.next_scheduler++ % state.schedulers.size();
        state.books[i].set_requests(state.books[i].requests() + 1);
        self->request(state.schedulers[i], caf::infinite, submit_atom_v, id, spec)
            .then(
                [=](v1::SchedulingDecision& decision) {
                  record(self, self->state.books[i], decision,
                         std::chrono::milliseconds(runs_for_ms));
                },
                [=](caf::error&) {
                  v1::WorkloadReport& book = self->state.books[i];
                  book.set_lost(book.lost() + 1);
                });
      },
      [=](const v1::ReleaseOrder& order) {
        const auto agent = self->state.agents.find(order.cluster_id());
        if (agent != self->state.agents.end()) {
          self->send(agent->second, order);
          self->state.completed += static_cast<uint64_t>(order.placement_ids_size());
        }
      },
      [=](const v1::SchedulingDecision&) {
        // A refused replica placed again: its work was already counted by its first decision.
      },
      [=](bind_atom, const std::string& cluster, actors::AgentActor agent) {
        self->state.agents[cluster] = std::move(agent);
      },
      [=](summary_atom) { return report(self); },
  };
}

}  // namespace

WorkloadClientActor spawn_workload_client(caf::actor_system& system,
                                          const std::vector<actors::SchedulerActor>& schedulers,
                                          const LocalWaits& waits) {
  return system.spawn(workload_client, schedulers, waits.large_answer);
}

}  // namespace unisched::runtime
