// unisched get: read what a running hub knows, as kubectl-like tables or JSON.
#include <caf/scoped_actor.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <thread>

#include "messages/caf_types.hpp"
#include "messages/errors.hpp"
#include "model/printable.hpp"
#include "runtime/json_report.hpp"
#include "tools/unisched/get_rows.hpp"
#include "tools/unisched/hub_client.hpp"
#include "tools/unisched/quota_output.hpp"
#include "tools/unisched/verbs.hpp"

namespace unisched::cli {
namespace {

using namespace unisched::atoms;

/// How often `get -w` asks the hub again.
constexpr std::chrono::seconds kWatchRefresh{1};

const char* const kResources = "clusters, nodes, requests, decisions or quotas";

std::string gib(int64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1fGi", static_cast<double>(bytes) / (1 << 30));
  return text;
}

void print_nodes(const v1::ClusterViews& views) {
  std::printf("%-22s %-24s %15s %19s %9s %5s\n", "CLUSTER", "NODE", "CPU(used/cap)",
              "MEMORY(used/cap)", "GPUS-FREE", "PODS");
  for (const auto& cluster : views.clusters()) {
    for (const auto& node : cluster.nodes()) {
      int free_devices = 0;
      for (const auto& device : node.accelerators()) {
        free_devices += device.allocated_milli() == 0 ? 1 : 0;
      }
      const std::string cpu = std::to_string(node.allocated_cpu_milli()) + "m/" +
                              std::to_string(node.allocatable_cpu_milli()) + "m";
      const std::string memory =
          gib(node.allocated_memory_bytes()) + "/" + gib(node.allocatable_memory_bytes());
      const std::string gpus =
          std::to_string(free_devices) + "/" + std::to_string(node.accelerators_size());
      std::printf("%-22s %-24s %15s %19s %9s %5d\n", model::printable(cluster.cluster_id()).c_str(),
                  model::printable(node.name()).c_str(), cpu.c_str(), memory.c_str(), gpus.c_str(),
                  node.pod_count());
    }
  }
}

/// A listing of clusters, requests or decisions: its rows, and its JSON as `-o json` prints it.
struct Listing {
  GetTable table;
  runtime::Json json;
};

/// Asks the hub for `resource` (clusters, requests or decisions); nullopt after printing why
/// not, with `status` set to the exit code.
std::optional<Listing> fetch_listing(const HubConnection& connection, caf::scoped_actor& self,
                                     const std::string& resource, bool wide, int& status) {
  std::optional<Listing> listing;
  const auto fail = [&](caf::error& failure) {
    std::fprintf(stderr, "error: %s\n", connection.system->render(failure).c_str());
    status = messages::cli_exit_code(failure);
  };
  const auto timeout = connection.answer_wait;
  if (resource == "clusters") {
    self->request(connection.hub, timeout, clusters_atom_v)
        .receive(
            [&](v1::ClusterList& list) {
              listing = Listing{cluster_table(list, wide), {{"clusters", runtime::Json::array()}}};
              for (const GetRow& row : listing->table.rows) {
                listing->json["clusters"].push_back(row.object);
              }
            },
            fail);
    return listing;
  }
  self->request(connection.hub, timeout, requests_atom_v)
      .receive(
          [&](v1::RequestList& list) {
            if (resource == "requests") {
              listing = Listing{request_table(list, wide), runtime::proto_json(list)};
              return;
            }
            listing = Listing{decision_table(list, wide), {{"decisions", runtime::Json::array()}}};
            for (const auto& request : list.requests()) {
              if (request.has_decision()) {
                listing->json["decisions"].push_back(runtime::proto_json(request.decision()));
              }
            }
          },
          fail);
  return listing;
}

void print_structured(const runtime::Json& json, const std::string& output) {
  std::printf("%s", output == "yaml" ? json_as_yaml(json).c_str()
                                     : (runtime::dump_json(json) + "\n").c_str());
}

void print_table(const GetTable& table) {
  std::printf("%s\n", table.heading.c_str());
  for (const GetRow& row : table.rows) {
    std::printf("%s\n", row.line.c_str());
  }
}

/// One object of a watch: its table line, a JSON line or a YAML document.
void print_watched(const GetRow& row, const std::string& output) {
  if (output == "json") {
    std::printf("%s\n", runtime::dump_json(row.object).c_str());
  } else if (output == "yaml") {
    std::printf("---\n%s", json_as_yaml(row.object).c_str());
  } else {
    std::printf("%s\n", row.line.c_str());
  }
}

/// `get -w`: the listing, then every object that appears or changes, as `kubectl get -w`
/// prints them, until interrupted (or for `watch_seconds`, when above 0).
int watch(const HubConnection& connection, const std::string& resource, const std::string& output,
          int64_t watch_seconds) {
  caf::scoped_actor self{*connection.system};
  const bool wide = output == "wide";
  std::map<std::string, std::string> seen;  // key -> what `changes` said last
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(watch_seconds);
  for (bool first = true;; first = false) {
    int status = 1;
    const auto listing = fetch_listing(connection, self, resource, wide, status);
    if (!listing) {
      return status;
    }
    if (first && (output == "table" || output == "wide")) {
      std::printf("%s\n", listing->table.heading.c_str());
    }
    for (const GetRow& row : listing->table.rows) {
      auto [at, added] = seen.emplace(row.key, row.changes);
      if (added || at->second != row.changes) {
        at->second = row.changes;
        print_watched(row, output);
      }
    }
    std::fflush(stdout);
    if (watch_seconds > 0 && std::chrono::steady_clock::now() >= until) {
      return 0;
    }
    std::this_thread::sleep_for(kWatchRefresh);
  }
}

int get_nodes_or_quotas(const HubConnection& connection, const ParsedArgs& args,
                        const std::string& resource, const std::string& output) {
  int status = 1;
  caf::scoped_actor self{*connection.system};
  const auto fail = [&](caf::error& failure) {
    std::fprintf(stderr, "error: %s\n", connection.system->render(failure).c_str());
    status = messages::cli_exit_code(failure);
  };
  const bool structured = output == "json" || output == "yaml";
  const auto timeout = connection.answer_wait;
  if (resource == "nodes") {
    self->request(connection.hub, timeout, nodes_atom_v, args.value("cluster"),
                  args.value("from", "hub") == "agent")
        .receive(
            [&](v1::ClusterViews& views) {
              structured ? print_structured(runtime::proto_json(views), output)
                         : print_nodes(views);
              status = 0;
            },
            fail);
    return status;
  }
  self->request(connection.hub, timeout, quotas_atom_v)
      .receive(
          [&](v1::QuotaList& list) {
            structured ? print_structured(quotas_json(list), output) : print_quota_table(list);
            status = 0;
          },
          fail);
  return status;
}

int run_get(const ParsedArgs& args) {
  const std::vector<std::string>& what = args.positional();
  const std::string resource = what.empty() ? "" : what.front();
  if (what.size() != 1 ||
      (resource != "clusters" && resource != "nodes" && resource != "requests" &&
       resource != "decisions" && resource != "quotas")) {
    std::fprintf(stderr, "error: unisched get takes one of: %s\n", kResources);
    return 2;
  }
  const std::string output = args.value("output", "table");
  if (output != "table" && output != "wide" && output != "json" && output != "yaml") {
    std::fprintf(stderr, "error: --output must be table, wide, json or yaml, not \"%s\"\n",
                 output.c_str());
    return 2;
  }
  const bool watching = args.has("watch");
  if (watching && (resource == "nodes" || resource == "quotas")) {
    std::fprintf(stderr, "error: --watch works for clusters, requests and decisions\n");
    return 2;
  }
  int64_t watch_seconds = 0;
  std::string error;
  if (!read_int(args, "watch-seconds", 1, 86400, watch_seconds, error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 2;
  }
  if (const std::string from = args.value("from", "hub"); from != "hub" && from != "agent") {
    std::fprintf(stderr, "error: --from must be hub or agent\n");
    return 2;
  }
  const auto connection = connect_to_hub(args);
  if (!connection) {
    return 1;
  }
  if (watching) {
    return watch(*connection, resource, output, watch_seconds);
  }
  if (resource == "nodes" || resource == "quotas") {
    return get_nodes_or_quotas(*connection, args, resource, output);
  }
  caf::scoped_actor self{*connection->system};
  int status = 1;
  const auto listing = fetch_listing(*connection, self, resource, output == "wide", status);
  if (!listing) {
    return status;
  }
  output == "json" || output == "yaml" ? print_structured(listing->json, output)
                                       : print_table(listing->table);
  return 0;
}

}  // namespace

Verb get_verb() {
  return Verb{
      "get",
      "Show what a running hub knows (clusters, nodes, requests, decisions, quotas)",
      "unisched get clusters|nodes|requests|decisions|quotas [--cluster ID] "
      "[-o table|wide|json|yaml] [-w]",
      "clusters: each cluster's version, node count, health and resyncs.\n"
      "nodes: every node of every cluster (or of --cluster ID) as the hub's view holds it.\n"
      "requests: every submitted request and its phase (PENDING, PLACED, PARTIALLY_PLACED,\n"
      "UNSCHEDULABLE, QUEUED while it waits for quota, FINISHED once its work ended; LOST\n"
      "only from journals of earlier versions).\n"
      "decisions: every placement of every decided request.\n"
      "quotas: every SchedulingQuota per resource: hard, used, borrowed, lent, and the demand\n"
      "of the requests waiting for it.\n"
      "With -w (clusters, requests, decisions), the listing is followed by every object that\n"
      "appears or changes, as `kubectl get -w` prints them (one JSON object a line with -o\n"
      "json, one YAML document each with -o yaml), until interrupted.",
      [] {
        std::vector<Flag> flags = {
            {"output", 'o', "FORMAT", false, "table (default), wide (more columns), json or yaml"},
            {"watch", 'w', "", false, "keep watching: print objects as they appear or change"},
            {"watch-seconds", '\0', "N", false, "with -w: stop after N seconds"},
            {"cluster", '\0', "ID", false, "nodes of this cluster only"},
            {"from", '\0', "SOURCE", false,
             "nodes: hub (default; the centre's view) or agent (what each agent holds)"},
        };
        for (Flag& flag : hub_client_flags()) {
          flags.push_back(std::move(flag));
        }
        return flags;
      }(),
      run_get,
  };
}

}  // namespace unisched::cli
