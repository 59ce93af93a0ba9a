// unisched get: read what a running hub knows.
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/io/middleman.hpp>
#include <caf/scoped_actor.hpp>

#include <cstdio>

#include "messages/caf_types.hpp"
#include "runtime/network.hpp"
#include "tools/unisched/tls_flags.hpp"
#include "tools/unisched/verbs.hpp"

namespace unisched::cli {
namespace {

using namespace unisched::atoms;

void print_clusters(const v1::ClusterList& list, bool json) {
  if (json) {
    std::printf("{\"clusters\": [");
    for (int i = 0; i < list.clusters_size(); ++i) {
      const auto& c = list.clusters(i);
      std::printf(
          "%s{\"id\": \"%s\", \"version\": %llu, \"nodes\": %llu, \"healthy\": %s, "
          "\"updates_applied\": %llu, \"resyncs\": %llu, \"staleness_ms\": %lld}",
          i == 0 ? "" : ", ", c.cluster_id().c_str(), static_cast<unsigned long long>(c.version()),
          static_cast<unsigned long long>(c.nodes()), c.healthy() ? "true" : "false",
          static_cast<unsigned long long>(c.updates_applied()),
          static_cast<unsigned long long>(c.resyncs()), static_cast<long long>(c.staleness_ms()));
    }
    std::printf("]}\n");
    return;
  }
  std::printf("%-22s %8s %7s %8s %8s %9s\n", "CLUSTER", "VERSION", "NODES", "HEALTHY", "RESYNCS",
              "STALE(ms)");
  for (const auto& c : list.clusters()) {
    std::printf("%-22s %8llu %7llu %8s %8llu %9lld\n", c.cluster_id().c_str(),
                static_cast<unsigned long long>(c.version()),
                static_cast<unsigned long long>(c.nodes()), c.healthy() ? "yes" : "no",
                static_cast<unsigned long long>(c.resyncs()),
                static_cast<long long>(c.staleness_ms()));
  }
}

int run_get(const ParsedArgs& args) {
  if (args.positional().size() != 1 || args.positional().front() != "clusters") {
    std::fprintf(stderr, "error: unisched get supports: clusters\n");
    return 2;
  }
  const std::string output = args.value("output", "table");
  if (output != "table" && output != "json") {
    std::fprintf(stderr, "error: --output must be table or json\n");
    return 2;
  }
  std::string error;
  const auto endpoint = runtime::parse_endpoint(args.value("hub", "127.0.0.1:4242"), error);
  if (!endpoint) {
    std::fprintf(stderr, "error: --hub: %s\n", error.c_str());
    return 2;
  }
  const runtime::TlsFiles tls = tls_files(args);
  if (const std::string problem = tls.problem(); !problem.empty()) {
    std::fprintf(stderr, "error: %s\n", problem.c_str());
    return 2;
  }
  caf::actor_system_config config;
  auto system = runtime::make_networked_system(config, tls);
  const auto hub = runtime::connect(*system, *endpoint, tls, error);
  if (!hub) {
    std::fprintf(stderr, "error: cannot reach the hub at %s: %s\n", endpoint->to_string().c_str(),
                 error.c_str());
    return 1;
  }
  int status = 1;
  caf::scoped_actor self{*system};
  self->request(*hub, std::chrono::seconds(5), clusters_atom_v)
      .receive(
          [&](v1::ClusterList& list) {
            print_clusters(list, output == "json");
            status = 0;
          },
          [&](caf::error& failure) {
            std::fprintf(stderr, "error: %s\n", system->render(failure).c_str());
          });
  return status;
}

}  // namespace

Verb get_verb() {
  return Verb{
      "get",
      "Show what a running hub knows (clusters)",
      "unisched get clusters [--hub HOST:PORT] [-o table|json]",
      "",
      [] {
        std::vector<Flag> flags = {
            {"hub", '\0', "HOST:PORT", false, "the hub (default 127.0.0.1:4242)"},
            {"output", 'o', "FORMAT", false, "table (default) or json"},
        };
        for (Flag& flag : tls_flags()) {
          flags.push_back(std::move(flag));
        }
        return flags;
      }(),
      run_get,
  };
}

}  // namespace unisched::cli
