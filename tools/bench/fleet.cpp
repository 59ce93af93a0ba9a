#include "tools/bench/fleet.hpp"

#include <caf/actor_system.hpp>
#include <caf/send.hpp>

#include "messages/caf_types.hpp"

namespace unisched::bench {
namespace {

using namespace unisched::atoms;

constexpr auto kStepTimeout = std::chrono::seconds(120);

}  // namespace

Fleet::Fleet(caf::actor_system& system, const CentreActor& centre,
             const StreamParameters& parameters, std::shared_ptr<VisibilityLog> visibility)
    : parameters_(parameters), coordinator_(system) {
  for (int c = 0; c < parameters.clusters; ++c) {
    records_.push_back(std::make_shared<AgentRecord>());
    agents_.push_back(spawn_bench_agent(system, centre, coordinator_, c, parameters, visibility,
                                        records_.back()));
  }
}

Fleet::~Fleet() {
  for (const BenchAgentActor& agent : agents_) {
    caf::anon_send_exit(agent, caf::exit_reason::user_shutdown);
  }
}

std::string Fleet::wait_listed() {
  bool timed_out = false;
  for (int listed = 0; listed < parameters_.clusters && !timed_out; ++listed) {
    coordinator_->receive([](online_atom, int) {},
                          caf::after(kStepTimeout) >> [&] { timed_out = true; });
  }
  for (const auto& record : records_) {
    if (!record->problem.empty()) {
      return record->problem;
    }
  }
  return timed_out
             ? "the listings were not applied within " + std::to_string(kStepTimeout.count()) + " s"
             : "";
}

IngestResult Fleet::stream() {
  IngestResult result;
  const double cpu_at_start = cpu_seconds();
  const auto start = Clock::now();
  for (const BenchAgentActor& agent : agents_) {
    caf::anon_send(agent, push_atom_v);
  }
  bool timed_out = false;
  for (int done = 0; done < parameters_.clusters && !timed_out; ++done) {
    coordinator_->receive([](summary_atom, int) {},
                          caf::after(kStepTimeout) >> [&] { timed_out = true; });
  }
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  result.cpu_seconds = cpu_seconds() - cpu_at_start;
  std::vector<double> acks;
  for (const auto& record : records_) {
    acks.insert(acks.end(), record->ack_ms.begin(), record->ack_ms.end());
    result.bytes += record->bytes;
    if (result.problem.empty()) {
      result.problem = record->problem;
    }
  }
  if (timed_out) {
    result.problem =
        "the agents did not finish within " + std::to_string(kStepTimeout.count()) + " s";
  }
  count_streamed(result, acks, parameters_);
  return result;
}

IngestResult Fleet::list_and_stream() {
  IngestResult result;
  result.problem = wait_listed();
  return result.problem.empty() ? stream() : result;
}

}  // namespace unisched::bench
