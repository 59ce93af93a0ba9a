// unisched get: read what a running hub knows, as kubectl-like tables or JSON.
#include <caf/scoped_actor.hpp>

#include <algorithm>
#include <cstdio>

#include "messages/caf_types.hpp"
#include "messages/errors.hpp"
#include "model/printable.hpp"
#include "runtime/json_report.hpp"
#include "tools/unisched/hub_client.hpp"
#include "tools/unisched/quota_output.hpp"
#include "tools/unisched/table.hpp"
#include "tools/unisched/verbs.hpp"

namespace unisched::cli {
namespace {

using namespace unisched::atoms;

const char* const kResources = "clusters, nodes, requests, decisions or quotas";

void print_clusters(const v1::ClusterList& list, bool json) {
  if (json) {
    runtime::Json out{{"clusters", runtime::Json::array()}};
    for (const auto& c : list.clusters()) {
      out["clusters"].push_back(runtime::Json{{"id", c.cluster_id()},
                                              {"version", c.version()},
                                              {"nodes", c.nodes()},
                                              {"healthy", c.healthy()},
                                              {"view_only", c.view_only()},
                                              {"updates_applied", c.updates_applied()},
                                              {"resyncs", c.resyncs()},
                                              {"gaps", c.gaps()},
                                              {"throttled", c.throttled()},
                                              {"staleness_ms", c.staleness_ms()}});
    }
    std::printf("%s\n", runtime::dump_json(out).c_str());
    return;
  }
  const int width = name_column_width(
      list.clusters(), [](const auto& c) { return model::printable(c.cluster_id()); }, "CLUSTER");
  std::printf("%-*s %8s %7s %8s %8s %9s %s\n", width, "CLUSTER", "VERSION", "NODES", "HEALTHY",
              "RESYNCS", "STALE(ms)", "PLACEMENTS");
  for (const auto& c : list.clusters()) {
    // A view-only cluster joined through the seed's service, which carries no orders.
    std::printf(
        "%-*s %8llu %7llu %8s %8llu %9lld %s\n", width, model::printable(c.cluster_id()).c_str(),
        static_cast<unsigned long long>(c.version()), static_cast<unsigned long long>(c.nodes()),
        c.healthy() ? "yes" : "no", static_cast<unsigned long long>(c.resyncs()),
        static_cast<long long>(c.staleness_ms()), c.view_only() ? "none (view only)" : "yes");
  }
}

std::string gib(int64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1fGi", static_cast<double>(bytes) / (1 << 30));
  return text;
}

void print_nodes(const v1::ClusterViews& views, bool json) {
  if (json) {
    std::printf("%s\n", to_json(views).c_str());
    return;
  }
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

void print_requests(const v1::RequestList& list, bool json, bool decisions) {
  if (json) {
    if (!decisions) {
      std::printf("%s\n", to_json(list).c_str());
      return;
    }
    runtime::Json out{{"decisions", runtime::Json::array()}};
    for (const auto& request : list.requests()) {
      if (request.has_decision()) {
        out["decisions"].push_back(runtime::proto_json(request.decision()));
      }
    }
    std::printf("%s\n", runtime::dump_json(out).c_str());
    return;
  }
  if (!decisions) {
    std::printf("%-28s %-17s %9s %10s %s\n", "REQUEST", "PHASE", "REPLICAS", "RECOVERED", "DETAIL");
    for (const auto& request : list.requests()) {
      std::string detail = request.detail();
      if (detail.empty() && request.decision().reasons_size() > 0) {
        detail = request.decision().reasons(0);
      }
      std::printf("%-28s %-17s %9d %10s %s\n", model::printable(request.request_id()).c_str(),
                  v1::RequestStatus::Phase_Name(request.phase()).c_str(),
                  request.decision().replicas_size(), request.recovered() ? "yes" : "no",
                  model::printable(detail).c_str());
    }
    return;
  }
  std::printf("%-28s %-24s %-22s %-24s %8s %11s\n", "REQUEST", "PLACEMENT", "CLUSTER", "NODE",
              "ATTEMPTS", "LATENCY(ms)");
  for (const auto& request : list.requests()) {
    const auto& decision = request.decision();
    for (const auto& replica : decision.replicas()) {
      std::printf(
          "%-28s %-24s %-22s %-24s %8u %11.2f\n", model::printable(request.request_id()).c_str(),
          model::printable(replica.placement_id()).c_str(),
          model::printable(replica.cluster()).c_str(), model::printable(replica.node()).c_str(),
          decision.attempts(), static_cast<double>(decision.latency_us()) / 1000.0);
    }
  }
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
  if (output != "table" && output != "json") {
    std::fprintf(stderr, "error: --output must be table or json\n");
    return 2;
  }
  const bool json = output == "json";
  if (const std::string from = args.value("from", "hub"); from != "hub" && from != "agent") {
    std::fprintf(stderr, "error: --from must be hub or agent\n");
    return 2;
  }
  const auto connection = connect_to_hub(args);
  if (!connection) {
    return 1;
  }
  int status = 1;
  caf::scoped_actor self{*connection->system};
  const auto fail = [&](caf::error& failure) {
    std::fprintf(stderr, "error: %s\n", connection->system->render(failure).c_str());
    status = messages::cli_exit_code(failure);
  };
  const auto timeout = std::chrono::seconds(10);
  if (resource == "clusters") {
    self->request(connection->hub, timeout, clusters_atom_v)
        .receive(
            [&](v1::ClusterList& list) {
              print_clusters(list, json);
              status = 0;
            },
            fail);
  } else if (resource == "nodes") {
    self->request(connection->hub, timeout, nodes_atom_v, args.value("cluster"),
                  args.value("from", "hub") == "agent")
        .receive(
            [&](v1::ClusterViews& views) {
              print_nodes(views, json);
              status = 0;
            },
            fail);
  } else if (resource == "quotas") {
    self->request(connection->hub, timeout, quotas_atom_v)
        .receive(
            [&](v1::QuotaList& list) {
              if (json) {
                std::printf("%s\n", runtime::dump_json(quotas_json(list)).c_str());
              } else {
                print_quota_table(list);
              }
              status = 0;
            },
            fail);
  } else {
    self->request(connection->hub, timeout, requests_atom_v)
        .receive(
            [&](v1::RequestList& list) {
              print_requests(list, json, resource == "decisions");
              status = 0;
            },
            fail);
  }
  return status;
}

}  // namespace

Verb get_verb() {
  return Verb{
      "get",
      "Show what a running hub knows (clusters, nodes, requests, decisions, quotas)",
      "unisched get clusters|nodes|requests|decisions|quotas [--cluster ID] [-o table|json]",
      "clusters: each cluster's version, node count, health and resyncs.\n"
      "nodes: every node of every cluster (or of --cluster ID) as the hub's view holds it.\n"
      "requests: every submitted request and its phase (PENDING, PLACED, PARTIALLY_PLACED,\n"
      "UNSCHEDULABLE, QUEUED while it waits for quota, FINISHED once its work ended, or LOST\n"
      "when the hub stopped before deciding it).\n"
      "decisions: every placement of every decided request.\n"
      "quotas: every SchedulingQuota per resource: hard, used, borrowed, lent, and the demand\n"
      "of the requests waiting for it.",
      [] {
        std::vector<Flag> flags = {
            {"output", 'o', "FORMAT", false, "table (default) or json"},
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
