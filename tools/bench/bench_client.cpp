#include "tools/bench/bench_client.hpp"

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>

#include "messages/caf_types.hpp"

namespace unisched::bench {
namespace {

using namespace unisched::atoms;

struct BenchClientState {
  actors::SchedulerActor scheduler;
  caf::actor coordinator;
  int index = 0;
  model::SchedulingRequestSpec spec;
  Clock::time_point deadline;
  std::shared_ptr<ClientRecord> record;
  uint64_t submitted = 0;
  int outstanding = 0;
  static inline const char* name = "bench_client";
};

using Client = caf::stateful_actor<BenchClientState>;

void submit_next(Client* self) {
  auto& state = self->state;
  if (Clock::now() >= state.deadline || !state.record->problem.empty()) {
    if (state.outstanding == 0) {
      self->send(state.coordinator, summary_atom_v, state.index);
    }
    return;
  }
  ++state.outstanding;
  const auto sent = Clock::now();
  const std::string id =
      "client-" + std::to_string(state.index) + "-" + std::to_string(state.submitted++);
  self->request(state.scheduler, caf::infinite, submit_atom_v, id, state.spec)
      .then(
          [=](const v1::SchedulingDecision& decision) {
            auto& state = self->state;
            --state.outstanding;
            state.record->decision_ms.push_back(milliseconds_since(sent));
            ++(decision.status() == v1::SchedulingDecision::PLACED ? state.record->placed
                                                                   : state.record->not_placed);
            submit_next(self);
          },
          [=](const caf::error& error) {
            auto& state = self->state;
            --state.outstanding;
            state.record->problem = "no decision: " + to_string(error);
            submit_next(self);
          });
}

caf::behavior bench_client(Client* self, actors::SchedulerActor scheduler, caf::actor coordinator,
                           int index, model::SchedulingRequestSpec spec, int window,
                           std::chrono::milliseconds duration,
                           std::shared_ptr<ClientRecord> record) {
  auto& state = self->state;
  state.scheduler = std::move(scheduler);
  state.coordinator = std::move(coordinator);
  state.index = index;
  state.spec = std::move(spec);
  state.record = std::move(record);
  return {
      [=](push_atom) {
        self->state.deadline = Clock::now() + duration;
        for (int i = 0; i < window; ++i) {
          submit_next(self);
        }
      },
  };
}

}  // namespace

caf::actor spawn_bench_client(caf::actor_system& system, const actors::SchedulerActor& scheduler,
                              const caf::actor& coordinator, int index,
                              const model::SchedulingRequestSpec& spec, int window,
                              std::chrono::milliseconds duration,
                              std::shared_ptr<ClientRecord> record) {
  return system.spawn(bench_client, scheduler, coordinator, index, spec, window, duration,
                      std::move(record));
}

}  // namespace unisched::bench
