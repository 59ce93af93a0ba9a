#include "tools/bench/scale.hpp"

#include <malloc.h>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/send.hpp>

#include "actors/actor_types.hpp"
#include "messages/caf_types.hpp"
#include "tools/bench/bench_actors.hpp"
#include "tools/bench/fleet.hpp"

namespace unisched::bench {
namespace {

/// Resident memory once freed heap (the listings' messages) is handed back to the kernel.
int64_t settled_resident_bytes() {
  malloc_trim(0);
  return resident_bytes();
}

}  // namespace

ScaleResult scale(const StreamParameters& stream, const ScheduleParameters& schedule) {
  caf::actor_system_config config;
  actors::register_actor_types(config);
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
      malloc_trim(0);
      result.schedule = run_schedulers(system, centre, schedule);
      result.with_scheduler_bytes = result.schedule.resident_bytes - at_start;
      result.with_scheduler_heap_bytes = result.schedule.heap_bytes - heap_at_start;
      result.problem = result.schedule.problem;
    }
  }
  caf::anon_send_exit(centre, caf::exit_reason::user_shutdown);
  return result;
}

}  // namespace unisched::bench
