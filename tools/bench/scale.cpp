#include "tools/bench/scale.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>

#include "actors/actor_types.hpp"
#include "messages/caf_types.hpp"
#include "tools/bench/bench_actors.hpp"
#include "tools/bench/fixtures.hpp"
#include "tools/bench/fleet.hpp"
#include "tools/bench/heap.hpp"

namespace unisched::bench {
namespace {

using namespace unisched::atoms;

/// Resident memory once freed heap (the listings' messages) is handed back to the kernel.
int64_t settled_resident_bytes() {
  release_free_heap();
  return resident_bytes();
}

/// Median time for cluster 0's ClusterActor to pull a full snapshot from its agent and apply
/// it, over `repetitions` resyncs; 0 with `problem` set when one failed.
double resync_p50_ms(caf::actor_system& system, const CentreActor& centre, int repetitions,
                     std::string& problem) {
  caf::scoped_actor self{system};
  actors::ClusterActor cluster;
  self->request(centre, std::chrono::seconds(10), clusters_atom_v, cluster_name(0))
      .receive([&](const actors::ClusterActor& found) { cluster = found; },
               [&](const caf::error& error) { problem = "no cluster 0: " + to_string(error); });
  std::vector<double> times;
  for (int i = 0; i < repetitions && problem.empty(); ++i) {
    const auto start = Clock::now();
    self->request(cluster, std::chrono::seconds(60), resync_atom_v)
        .receive([&](const v1::Ack&) { times.push_back(milliseconds_since(start)); },
                 [&](const caf::error& error) { problem = "resync: " + to_string(error); });
  }
  return problem.empty() ? percentile(times, 50) : 0;
}

}  // namespace

ScaleResult scale(const StreamParameters& stream, const ScheduleParameters& schedule) {
  caf::actor_system_config config;
  actors::configure_actor_system(config);
  caf::actor_system system{config};
  const CentreActor centre = spawn_centre(system, nullptr);
  ScaleResult result;
  const int64_t at_start = settled_resident_bytes();
  const int64_t heap_at_start = heap_bytes_in_use();
  {
    Fleet fleet(system, centre, stream, nullptr);
    const auto start = Clock::now();
    result.problem = fleet.wait_listed();
    result.listing_seconds = milliseconds_since(start) / 1000;
    result.views_bytes = settled_resident_bytes() - at_start;
    result.views_heap_bytes = heap_bytes_in_use() - heap_at_start;
    if (result.problem.empty()) {
      result.ingest = fleet.stream();
      result.problem = result.ingest.problem;
    }
    if (result.problem.empty()) {
      result.resync_p50_ms = resync_p50_ms(system, centre, 5, result.problem);
    }
    if (result.problem.empty()) {
      release_free_heap();
      ScheduleParameters one = schedule;
      one.schedulers = 1;
      result.schedule = run_schedulers(system, centre, one);
      result.with_scheduler_bytes = result.schedule.resident_bytes - at_start;
      result.with_scheduler_heap_bytes = result.schedule.heap_bytes - heap_at_start;
      result.problem = result.schedule.problem;
    }
    if (result.problem.empty()) {
      ScheduleParameters two = schedule;
      two.schedulers = 2;
      result.racing = run_schedulers(system, centre, two);
      result.problem = result.racing.problem;
    }
  }
  caf::anon_send_exit(centre, caf::exit_reason::user_shutdown);
  return result;
}

}  // namespace unisched::bench
