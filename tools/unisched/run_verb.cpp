// unisched run: the single-node runtime with simulated clusters (the main job).
#include <spdlog/spdlog.h>
#include <caf/actor_system.hpp>
#include <caf/send.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "adapters/slurm/slurm_cluster.hpp"
#include "policy/framework.hpp"
#include "runtime/grpc_service.hpp"
#include "runtime/hub.hpp"
#include "runtime/manifest_loader.hpp"
#include "runtime/quota_book.hpp"
#include "runtime/single_node.hpp"
#include "tools/unisched/run_output.hpp"
#include "tools/unisched/verbs.hpp"

namespace unisched::cli {
namespace {

bool read_rate(const ParsedArgs& args, const std::string& flag, double& out, std::string& error) {
  if (!args.has(flag)) {
    return true;
  }
  const std::string text = args.value(flag);
  try {
    size_t used = 0;
    const double value = std::stod(text, &used);
    if (used == text.size() && value >= 0 && value <= 1e6) {
      out = value;
      return true;
    }
  } catch (const std::exception&) {
  }
  error = "--" + flag + " must be a number of events per second from 0 to 1000000, not \"" + text +
          "\"";
  return false;
}

bool read_duration(const ParsedArgs& args, const std::string& flag, std::chrono::milliseconds& out,
                   std::string& error) {
  if (args.has(flag) && !parse_duration(args.value(flag), out)) {
    error = "--" + flag + " must be a duration such as 500ms, 10s or 2m, not \"" +
            args.value(flag) + "\"";
    return false;
  }
  return true;
}

bool read_partitions(const ParsedArgs& args, std::vector<runtime::Partition>& out,
                     std::string& error) {
  for (const std::string& text : args.values("partition")) {
    const size_t first = text.find(':');
    const size_t second = first == std::string::npos ? first : text.find(':', first + 1);
    runtime::Partition partition;
    if (second == std::string::npos ||
        !parse_duration(text.substr(first + 1, second - first - 1), partition.start) ||
        !parse_duration(text.substr(second + 1), partition.length)) {
      error =
          "--partition must be CLUSTER:START:LENGTH, e.g. a100-uswest:3s:4s, not \"" + text + "\"";
      return false;
    }
    partition.cluster_id = text.substr(0, first);
    out.push_back(partition);
  }
  return true;
}

/// "--scorers least-allocated=1,gpu-packing=2.5": known scorer names with positive weights.
bool read_scorers(const ParsedArgs& args, std::vector<std::pair<std::string, double>>& out,
                  std::string& error) {
  if (!args.has("scorers")) {
    return true;
  }
  const std::string text = args.value("scorers");
  const auto known = policy::Registry::builtin().scorer_names();
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, end - start);
    const size_t equals = item.find('=');
    const std::string name = item.substr(0, equals);
    double weight = 0;
    if (equals != std::string::npos) {
      try {
        size_t used = 0;
        weight = std::stod(item.substr(equals + 1), &used);
        weight = used == item.size() - equals - 1 ? weight : 0;
      } catch (const std::exception&) {
        weight = 0;
      }
    }
    if (std::find(known.begin(), known.end(), name) == known.end() || !(weight > 0)) {
      std::string names;
      for (const auto& n : known) {
        names += (names.empty() ? "" : ", ") + n;
      }
      error = "--scorers takes NAME=WEIGHT pairs with a positive weight and NAME one of " + names +
              "; \"" + item + "\" is not one";
      return false;
    }
    out.emplace_back(name, weight);
    start = end + 1;
  }
  return true;
}

bool read_options(const ParsedArgs& args, runtime::RunOptions& options, std::string& error) {
  int64_t clusters = options.clusters;
  int64_t nodes = options.nodes_per_cluster;
  int64_t seed = static_cast<int64_t>(options.seed);
  int64_t misses = options.supervisor.max_misses;
  int64_t schedulers = options.schedulers;
  int64_t retries = options.scheduling.max_retries;
  int64_t node_sample = 0;
  int64_t in_flight = static_cast<int64_t>(options.scheduling.max_in_flight);
  const bool ok =
      read_int(args, "clusters", 1, 1000, clusters, error) &&
      read_int(args, "nodes", 1, 100000, nodes, error) &&
      read_int(args, "seed", 0, INT64_MAX, seed, error) &&
      read_int(args, "max-misses", 1, 1000, misses, error) &&
      read_duration(args, "duration", options.duration, error) &&
      read_duration(args, "push-interval", options.agent.push_interval, error) &&
      read_duration(args, "observe-interval", options.agent.observe_interval, error) &&
      read_duration(args, "probe-interval", options.supervisor.probe_interval, error) &&
      read_duration(args, "probe-timeout", options.supervisor.probe_timeout, error) &&
      read_rate(args, "churn", options.simulation.membership_events_per_second, error) &&
      read_rate(args, "pod-rate", options.simulation.pod_events_per_second, error) &&
      read_rate(args, "rate", options.requests_per_second, error) &&
      read_int(args, "schedulers", 1, 64, schedulers, error) &&
      read_int(args, "max-retries", 0, 100, retries, error) &&
      read_int(args, "node-sample", 0, 100000, node_sample, error) &&
      read_int(args, "in-flight", 1, 64, in_flight, error) &&
      read_duration(args, "mean-runtime", options.mean_runtime, error) &&
      read_partitions(args, options.partitions, error);
  if (!ok) {
    return false;
  }
  const std::pair<const char*, std::chrono::milliseconds> positive[] = {
      {"push-interval", options.agent.push_interval},
      {"observe-interval", options.agent.observe_interval},
      {"probe-interval", options.supervisor.probe_interval},
      {"probe-timeout", options.supervisor.probe_timeout}};
  for (const auto& [flag, value] : positive) {
    if (value.count() <= 0) {
      error = std::string("--") + flag + " must be at least 1ms";
      return false;
    }
  }
  options.clusters = static_cast<int>(clusters);
  options.nodes_per_cluster = nodes;
  options.seed = static_cast<uint64_t>(seed);
  options.supervisor.max_misses = static_cast<int>(misses);
  options.schedulers = static_cast<int>(schedulers);
  options.scheduling.max_retries = static_cast<int>(retries);
  if (args.has("node-sample")) {
    options.node_sample = static_cast<size_t>(node_sample);
  }
  options.policy = args.value("policy", options.policy);
  const std::string check = args.value("commit-check", "cluster");
  if (check != "cluster" && check != "node") {
    error = "--commit-check must be cluster or node, not \"" + check + "\"";
    return false;
  }
  options.scheduling.commit_mode =
      check == "node" ? actors::CommitMode::NodeRevisions : actors::CommitMode::ClusterRevision;
  if (in_flight > 1 && check != "node") {
    error =
        "--in-flight above 1 needs --commit-check node (every commit changes a cluster's "
        "revision, so a second decision in flight would conflict with the first)";
    return false;
  }
  options.scheduling.max_in_flight = static_cast<size_t>(in_flight);
  if (std::string policy_error; !policy::Registry::builtin().preset(options.policy, policy_error)) {
    error = "--policy: " + policy_error;
    return false;
  }
  options.simulation.step = options.agent.observe_interval;
  return read_scorers(args, options.scorers, error);
}

/// The clusters' profiles from --profiles (config/profiles by default); nullopt after printing
/// the problems.
std::optional<std::vector<model::ClusterResourceProfile>> read_profiles(const ParsedArgs& args) {
  std::vector<std::string> paths = args.values("profiles");
  if (paths.empty()) {
    paths = {"config/profiles"};
    std::error_code ignored;
    if (!std::filesystem::exists(paths[0], ignored)) {
      std::fprintf(stderr,
                   "error: no --profiles given, and the default, config/profiles, is not in this "
                   "folder (it is in a clone of unisched): give --profiles FILE|DIR\n");
      return std::nullopt;
    }
  }
  const runtime::ManifestSet set = runtime::load_manifests(paths);
  std::vector<model::ClusterResourceProfile> profiles;
  for (const auto& loaded : set.manifests) {
    if (const auto* profile = std::get_if<model::ClusterResourceProfile>(&loaded.manifest)) {
      profiles.push_back(*profile);
    }
  }
  for (const auto& problem : set.problems) {
    std::fprintf(stderr, "%s\n", problem.to_string().c_str());
  }
  if (!set.problems.empty() || profiles.empty()) {
    std::fprintf(stderr, "error: %s\n",
                 set.problems.empty() ? "no ClusterResourceProfile found in --profiles"
                                      : "fix the profiles above first");
    return std::nullopt;
  }
  return profiles;
}

/// The SchedulingQuotas of --quotas, in the ledger's form; false after printing the problems.
bool read_quotas(const ParsedArgs& args, runtime::RunOptions& options) {
  if (!args.has("quotas")) {
    return true;
  }
  const runtime::ManifestSet set = runtime::load_manifests({args.value("quotas")});
  for (const auto& problem : set.problems) {
    std::fprintf(stderr, "%s\n", problem.to_string().c_str());
  }
  for (const auto& loaded : set.manifests) {
    if (const auto* quota = std::get_if<model::SchedulingQuota>(&loaded.manifest)) {
      options.quotas.push_back(runtime::quota_definition(
          *quota, model::render_manifests({loaded.manifest}, model::OutputFormat::Json)));
    }
  }
  if (!set.problems.empty() || options.quotas.empty()) {
    std::fprintf(stderr, "error: --quotas: %s\n",
                 set.problems.empty() ? "no SchedulingQuota found" : "fix the quotas above first");
    return false;
  }
  return true;
}

/// Empty when every --partition names a cluster of the run; else the error.
std::string check_partitions(const std::vector<model::ClusterResourceProfile>& clusters,
                             const runtime::RunOptions& options) {
  std::set<std::string> ids;
  for (const auto& cluster : clusters) {
    ids.insert(cluster.spec.cluster_id);
  }
  for (const auto& partition : options.partitions) {
    if (ids.count(partition.cluster_id) == 0) {
      return "--partition names cluster \"" + partition.cluster_id +
             "\", which this run does not have";
    }
  }
  return {};
}

/// --grpc: outside agents join through a hub; the schedulers place work on their clusters too.
std::function<std::function<void()>(caf::actor_system&, const actors::SupervisorActor&,
                                    const std::vector<actors::SchedulerActor>&)>
grpc_door(const runtime::Endpoint& endpoint) {
  return
      [endpoint](caf::actor_system& system, const actors::SupervisorActor& supervisor,
                 const std::vector<actors::SchedulerActor>& schedulers) -> std::function<void()> {
        const runtime::HubActor hub = runtime::spawn_hub(system, supervisor, schedulers, {});
        std::string problem;
        std::shared_ptr<runtime::GrpcMetadataServer> server = runtime::GrpcMetadataServer::start(
            system, hub, endpoint, runtime::TlsFiles{}, runtime::GrpcServiceSettings{}, problem);
        if (!server) {
          spdlog::error("--grpc: {}", problem);
        } else {
          spdlog::info("gRPC serving on {}:{}", endpoint.host, server->port());
        }
        return [server, hub] {
          if (server) {
            server->shutdown();
          }
          caf::anon_send_exit(hub, caf::exit_reason::user_shutdown);
        };
      };
}

/// A real Slurm cluster beside the simulated ones (--slurm-conf) and the gRPC door for agents
/// outside (--grpc); 0, or the exit code after printing why not.
int open_to_the_outside(const ParsedArgs& args, runtime::RunOptions& options) {
  if (args.has("slurm-conf")) {
    adapters::slurm::SlurmOptions slurm;
    slurm.slurm_conf = args.value("slurm-conf");
    auto cluster = adapters::slurm::SlurmCluster::connect(slurm);
    if (!cluster.ok()) {
      std::fprintf(stderr, "error: --slurm-conf: %s\n",
                   std::string(cluster.status().message()).c_str());
      return 1;
    }
    options.real_clusters.push_back(std::move(*cluster));
  }
  if (args.has("grpc")) {
    std::string error;
    const auto endpoint = runtime::parse_endpoint(args.value("grpc"), error);
    if (!endpoint) {
      std::fprintf(stderr, "error: --grpc: %s\n", error.c_str());
      return 2;
    }
    options.open_door = grpc_door(*endpoint);
  }
  return 0;
}

int run_run(const ParsedArgs& args) {
  runtime::RunOptions options;
  std::string error;
  const std::string report_format = args.value("report", "table");
  if (report_format != "table" && report_format != "json") {
    error = "--report must be table or json, not \"" + report_format + "\"";
  }
  if (!error.empty() || !read_options(args, options, error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 2;
  }
  const auto profiles = read_profiles(args);
  if (!profiles || !read_quotas(args, options)) {
    return 1;
  }
  const auto clusters = runtime::plan_clusters(*profiles, options.clusters);
  if (const std::string problem = check_partitions(clusters, options); !problem.empty()) {
    std::fprintf(stderr, "error: %s\n", problem.c_str());
    return 2;
  }
  if (const int status = open_to_the_outside(args, options); status != 0) {
    return status;
  }
  const auto report = runtime::run_single_node(clusters, options, log_progress);
  for (const auto& problem : report.problems) {
    std::fprintf(stderr, "warning: %s\n", problem.c_str());
  }
  if (report_format == "json") {
    print_json(report, options);
    print_table(report, stderr);
  } else {
    print_table(report, stdout);
  }
  return report.problems.empty() ? 0 : 1;
}

}  // namespace

Verb run_verb() {
  return Verb{
      "run",
      "Run the single-node runtime with simulated clusters",
      "unisched run [--profiles DIR] [--clusters N] [--nodes N] [--duration 10s] [--report json]",
      "Starts one simulated cluster per profile (or --clusters of them, reusing profiles), a\n"
      "metadata agent beside each, one ClusterActor per cluster, the supervisor, SchedulerActors\n"
      "and a synthetic workload. Agents push incremental updates; gaps are repaired from full\n"
      "snapshots; the supervisor marks clusters unhealthy when they stop answering. Schedulers\n"
      "decide on their copies of the views and commit by compare-and-set. Prints progress every\n"
      "second and a summary at the end (--report json: one JSON object on stdout).\n"
      "\n"
      "Examples:\n"
      "  unisched run\n"
      "  unisched run --clusters 20 --nodes 500 --duration 30s --push-interval 100ms\n"
      "  unisched run --partition t4-useast:3s:4s --report json\n"
      "  unisched run --quotas config/quotas/teams.yaml\n"
      "  unisched run --slurm-conf /etc/slurm/slurm.conf",
      {
          {"profiles", 'f', "FILE|DIR", true, "cluster profiles (default config/profiles)"},
          {"clusters", '\0', "N", false, "number of clusters (default: one per profile)"},
          {"nodes", '\0', "N", false, "nodes per cluster (default: as each profile says)"},
          {"duration", 'd', "DURATION", false, "how long to run (default 10s)"},
          {"seed", '\0', "N", false, "seed of the simulation (default 1)"},
          {"push-interval", '\0', "DURATION", false, "agents push every (default 1s)"},
          {"observe-interval", '\0', "DURATION", false, "agents observe every (default 100ms)"},
          {"probe-interval", '\0', "DURATION", false, "supervisor probes every (default 500ms)"},
          {"probe-timeout", '\0', "DURATION", false,
           "a probe counts as missed after (default 400ms)"},
          {"max-misses", '\0', "N", false,
           "missed probes that make a cluster unhealthy (default 3)"},
          {"churn", '\0', "RATE", false,
           "node joins/leaves/drains per second per cluster (default 0.5)"},
          {"pod-rate", '\0', "RATE", false,
           "background pod events per second per cluster (default 20)"},
          {"partition", '\0', "ID:START:LENGTH", true, "cut a cluster's agent off for a while"},
          {"schedulers", '\0', "N", false, "SchedulerActors racing on the clusters (default 2)"},
          {"policy", '\0', "NAME", false,
           "spread, binpack, balanced, bestfit, random or fgd (default balanced)"},
          {"grpc", '\0', "HOST:PORT", false,
           "also let outside agents join over gRPC (ClusterMetadataService), plain TCP"},
          {"slurm-conf", '\0', "FILE", false,
           "also join the Slurm cluster of this slurm.conf (through libslurm) beside the "
           "simulated ones"},
          node_sample_flag(),
          {"scorers", '\0', "NAME=W,...", false,
           "weighted scorers instead of the preset's, e.g. least-allocated=1,gpu-packing=2"},
          {"commit-check", '\0', "MODE", false, "cluster (default) or node revisions"},
          {"in-flight", '\0', "N", false,
           "decisions each scheduler has committing at once, with --commit-check node "
           "(default 1)"},
          {"max-retries", '\0', "N", false,
           "decisions after conflicts before giving up (default 5)"},
          {"rate", '\0', "RATE", false, "workload requests per second (default 20; 0: none)"},
          {"mean-runtime", '\0', "DURATION", false, "how long placed work runs (default 3s)"},
          {"report", 'o', "FORMAT", false, "table (default) or json"},
          {"quotas", '\0', "FILE", false,
           "SchedulingQuotas to enforce; the workload's requests go to their queues in turn, "
           "and the summary shows each tenant's used/hard"},
      },
      run_run,
  };
}

}  // namespace unisched::cli
