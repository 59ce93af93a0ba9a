#include "tools/bench/full_sync.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/send.hpp>

#include "actors/actor_types.hpp"
#include "messages/caf_types.hpp"
#include "tools/bench/bench_actors.hpp"
#include "tools/bench/fleet.hpp"

namespace unisched::bench {
namespace {

IngestResult churn(caf::actor_system& system, StreamParameters parameters, bool full_sync) {
  parameters.full_sync = full_sync;
  const CentreActor centre = spawn_centre(system, nullptr);
  const IngestResult result = Fleet(system, centre, parameters, nullptr).list_and_stream();
  caf::anon_send_exit(centre, caf::exit_reason::user_shutdown);
  return result;
}

}  // namespace

FullSyncResult full_sync_baseline(const StreamParameters& parameters) {
  caf::actor_system_config config;
  actors::configure_actor_system(config);
  caf::actor_system system{config};
  FullSyncResult result;
  result.incremental = churn(system, parameters, false);
  result.full_sync = churn(system, parameters, true);
  return result;
}

}  // namespace unisched::bench
