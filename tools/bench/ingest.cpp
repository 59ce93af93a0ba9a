#include "tools/bench/ingest.hpp"

#include <yaml-cpp/yaml.h>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/io/middleman.hpp>
#include <caf/send.hpp>

#include <cstdio>
#include <thread>

#include "actors/actor_types.hpp"
#include "messages/caf_types.hpp"
#include "tools/bench/bench_actors.hpp"
#include "tools/bench/fleet.hpp"
#include "tools/bench/json_line.hpp"

namespace unisched::bench {
namespace {

using namespace unisched::atoms;

caf::actor_system_config& with_types(caf::actor_system_config& config) {
  actors::configure_actor_system(config);
  return config;
}

}  // namespace

IngestResult ingest_in_process(const StreamParameters& parameters) {
  caf::actor_system_config config;
  caf::actor_system system{with_types(config)};
  IngestResult result;
  {
    // Throughput: every agent pushes as fast as its Acks come back.
    StreamParameters saturated = parameters;
    saturated.rate = 0;
    const CentreActor centre = spawn_centre(system, nullptr);
    result = Fleet(system, centre, saturated, nullptr).list_and_stream();
    caf::anon_send_exit(centre, caf::exit_reason::user_shutdown);
  }
  // Latency: agents push at `rate` each, below saturation, so queueing does not swamp it.
  StreamParameters paced = parameters;
  paced.updates = 2 * parameters.rate;  // two seconds
  auto visibility = std::make_shared<VisibilityLog>(paced.clusters, paced.updates + 2);
  const CentreActor centre = spawn_centre(system, visibility);
  const IngestResult timed = Fleet(system, centre, paced, visibility).list_and_stream();
  // The Acks may overtake the mirrors' last updates; give them a bounded moment to catch up.
  for (int waited = 0; waited < 10'000 && !visibility->complete(); ++waited) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (result.problem.empty()) {
    result.problem = !timed.problem.empty()    ? timed.problem
                     : !visibility->complete() ? "a view mirror never saw its cluster's last update"
                                               : "";
  }
  const auto visible = visibility->latencies_ms();
  result.visible_p50_ms = percentile(visible, 0.50);
  result.visible_p99_ms = percentile(visible, 0.99);
  caf::anon_send_exit(centre, caf::exit_reason::user_shutdown);
  return result;
}

IngestResult ingest_over_caf(const StreamParameters& parameters, const std::string& agent_command) {
  caf::actor_system_config config;
  config.load<caf::io::middleman>();
  caf::actor_system system{with_types(config)};
  const CentreActor centre = spawn_centre(system, nullptr);
  IngestResult result;
  const auto port = system.middleman().publish(centre, 0, "127.0.0.1", true);
  if (!port) {
    result.problem = "could not listen on 127.0.0.1: " + to_string(port.error());
  } else {
    const std::string command =
        agent_command + " --agents-for " + std::to_string(*port) + " --clusters " +
        std::to_string(parameters.clusters) + " --nodes " + std::to_string(parameters.nodes) +
        " --deltas " + std::to_string(parameters.deltas_per_update) + " --updates " +
        std::to_string(parameters.updates) + " --window " + std::to_string(parameters.window) +
        " --gpus " + std::to_string(parameters.gpus) +
        (parameters.whole_states ? " --node-deltas whole" : "");
    std::string output;
    if (FILE* child = popen(command.c_str(), "r")) {
      char buffer[4096];
      for (size_t read; (read = std::fread(buffer, 1, sizeof buffer, child)) > 0;) {
        output.append(buffer, read);
      }
      const int status = pclose(child);
      try {
        const YAML::Node line = YAML::Load(output);
        result.deltas = line["deltas"].as<uint64_t>();
        result.seconds = line["seconds"].as<double>();
        result.deltas_per_s = line["deltas_per_s"].as<double>();
        result.ack_p50_ms = line["p50_ms"].as<double>();
        result.ack_p99_ms = line["p99_ms"].as<double>();
        result.problem = line["problem"].as<std::string>();
      } catch (const YAML::Exception&) {
        result.problem = "the agents' process (status " + std::to_string(status) +
                         ") printed no result: \"" + output + "\"";
      }
    } else {
      result.problem = "could not start the agents' process: " + command;
    }
  }
  caf::anon_send_exit(centre, caf::exit_reason::user_shutdown);
  return result;
}

int run_remote_agents(uint16_t port, const StreamParameters& parameters) {
  caf::actor_system_config config;
  config.load<caf::io::middleman>();
  caf::actor_system system{with_types(config)};
  auto centre = system.middleman().remote_actor<CentreActor>("127.0.0.1", port);
  IngestResult result;
  if (!centre) {
    result.problem = "could not reach the centre: " + to_string(centre.error());
  } else {
    result = Fleet(system, *centre, parameters, nullptr).list_and_stream();
  }
  JsonLine("remote-agents")
      .integer("deltas", static_cast<int64_t>(result.deltas))
      .number("seconds", result.seconds)
      .number("deltas_per_s", result.deltas_per_s)
      .number("p50_ms", result.ack_p50_ms)
      .number("p99_ms", result.ack_p99_ms)
      .text("problem", result.problem)
      .print();
  return result.problem.empty() ? 0 : 1;
}

}  // namespace unisched::bench
