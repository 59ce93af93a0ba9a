#include "tools/unisched/agent_adapters.hpp"

#include <cstdio>
#include <functional>

#include "adapters/kubernetes/kubernetes_cluster.hpp"
#include "adapters/simulated_cluster.hpp"
#include "adapters/slurm/slurm_cluster.hpp"
#include "model/names.hpp"
#include "model/printable.hpp"
#include "runtime/manifest_loader.hpp"

namespace unisched::cli {
namespace {

/// The one ClusterResourceProfile in `path`, or nullopt after printing why not.
std::optional<model::ClusterResourceProfile> load_profile(const std::string& path) {
  const auto set = runtime::load_manifests({path});
  for (const auto& problem : set.problems) {
    std::fprintf(stderr, "%s\n", problem.to_string().c_str());
  }
  std::vector<model::ClusterResourceProfile> profiles;
  for (const auto& loaded : set.manifests) {
    if (const auto* profile = std::get_if<model::ClusterResourceProfile>(&loaded.manifest)) {
      profiles.push_back(*profile);
    }
  }
  if (!set.problems.empty() || profiles.size() != 1) {
    std::fprintf(stderr, "error: --profile must hold exactly one valid ClusterResourceProfile\n");
    return std::nullopt;
  }
  return profiles.front();
}

/// --cluster, checked; empty when not given; nullopt after printing why it is unusable.
std::optional<std::string> cluster_flag(const ParsedArgs& args) {
  const std::string id = args.value("cluster");
  if (const std::string reason = model::check_cluster_id(id); !id.empty() && !reason.empty()) {
    std::fprintf(stderr, "error: --cluster %s: %s\n", model::quoted_brief(id).c_str(),
                 reason.c_str());
    return std::nullopt;
  }
  return id;
}

std::shared_ptr<adapters::ClusterAdapter> simulated(const ParsedArgs& args,
                                                    std::chrono::milliseconds observe_interval,
                                                    int& exit_code) {
  exit_code = 2;
  const auto id = cluster_flag(args);
  if (!id) {
    return nullptr;
  }
  if (!args.has("profile")) {
    std::fprintf(stderr, "error: --profile FILE is required with --adapter sim\n");
    return nullptr;
  }
  auto profile = load_profile(args.value("profile"));
  if (!profile) {
    exit_code = 1;
    return nullptr;
  }
  if (!id->empty()) {
    profile->spec.cluster_id = *id;
  }
  adapters::SimulationOptions simulation;
  simulation.seed = static_cast<uint64_t>(std::hash<std::string>{}(profile->spec.cluster_id));
  simulation.step = observe_interval;
  return std::make_shared<adapters::SimulatedCluster>(*profile, simulation);
}

std::shared_ptr<adapters::ClusterAdapter> kubernetes(const ParsedArgs& args, int& exit_code) {
  namespace k8s = adapters::kubernetes;
  exit_code = 2;
  auto id = cluster_flag(args);
  if (!id) {
    return nullptr;
  }
  auto access = args.has("kubeconfig")
                    ? k8s::read_kubeconfig(args.value("kubeconfig"), args.value("context"))
                    : k8s::in_cluster_access();
  if (!access.ok()) {
    std::fprintf(stderr, "error: %s\n", std::string(access.status().message()).c_str());
    return nullptr;
  }
  if (id->empty()) {
    const auto derived = access->context.empty()
                             ? absl::StatusOr<std::string>(absl::InvalidArgumentError(
                                   "in a pod there is no context to name the cluster: give "
                                   "--cluster ID"))
                             : k8s::cluster_id_from_context(access->context);
    if (!derived.ok()) {
      std::fprintf(stderr, "error: %s\n", std::string(derived.status().message()).c_str());
      return nullptr;
    }
    *id = *derived;
  }
  k8s::KubernetesOptions options;
  options.cluster_id = *id;
  auto cluster = k8s::KubernetesCluster::connect(*access, options);
  if (!cluster.ok()) {
    exit_code = 1;
    std::fprintf(stderr, "error: %s\n", std::string(cluster.status().message()).c_str());
    return nullptr;
  }
  return std::shared_ptr<adapters::ClusterAdapter>(std::move(*cluster));
}

std::shared_ptr<adapters::ClusterAdapter> slurm(const ParsedArgs& args, int& exit_code) {
  exit_code = 2;
  auto id = cluster_flag(args);
  if (!id) {
    return nullptr;
  }
  adapters::slurm::SlurmOptions options;
  options.slurm_conf = args.value("slurm-conf");
  options.cluster_id = *id;
  for (const std::string& partition : args.values("partition")) {
    options.partitions.insert(partition);
  }
  if (args.has("slurm-pending-limit") &&
      !parse_duration(args.value("slurm-pending-limit"), options.pending_limit)) {
    std::fprintf(stderr, "error: --slurm-pending-limit must be a duration such as 5s\n");
    return nullptr;
  }
  options.work_dir = args.value("slurm-workdir", options.work_dir);
  auto cluster = adapters::slurm::SlurmCluster::connect(options);
  if (!cluster.ok()) {
    exit_code = absl::IsInvalidArgument(cluster.status()) ? 2 : 1;
    std::fprintf(stderr, "error: %s\n", std::string(cluster.status().message()).c_str());
    return nullptr;
  }
  return std::shared_ptr<adapters::ClusterAdapter>(std::move(*cluster));
}

}  // namespace

std::shared_ptr<adapters::ClusterAdapter> make_adapter(const ParsedArgs& args,
                                                       std::chrono::milliseconds observe_interval,
                                                       int& exit_code) {
  const std::string adapter = args.value("adapter", "sim");
  if (adapter == "sim") {
    return simulated(args, observe_interval, exit_code);
  }
  if (adapter == "kubernetes") {
    return kubernetes(args, exit_code);
  }
  if (adapter == "slurm") {
    return slurm(args, exit_code);
  }
  exit_code = 2;
  std::fprintf(stderr, "error: --adapter: unknown adapter %s (available: sim, kubernetes, slurm)\n",
               model::quoted_brief(adapter).c_str());
  return nullptr;
}

std::vector<Flag> adapter_flags() {
  return {
      {"adapter", '\0', "NAME", false,
       "how the agent sees its cluster: sim (default; a simulated cluster from --profile) or "
       "kubernetes (a real cluster through its API server, placements run as pods) or slurm "
       "(a Slurm cluster through libslurm, placements run as batch jobs)"},
      {"profile", 'f', "FILE", false, "sim: the cluster's ClusterResourceProfile"},
      {"kubeconfig", '\0', "FILE", false,
       "kubernetes: the kubeconfig (default: the pod's service account, in a pod)"},
      {"context", '\0', "NAME", false, "kubernetes: the kubeconfig context (default: current)"},
      {"slurm-conf", '\0', "FILE", false,
       "slurm: the cluster's slurm.conf (default: $SLURM_CONF, else Slurm's default)"},
      {"partition", '\0', "NAME", true, "slurm: only nodes of this partition"},
      {"slurm-pending-limit", '\0', "DURATION", false,
       "slurm: a placement whose job still pends after this is refused (default 5s)"},
      {"slurm-workdir", '\0', "DIR", false,
       "slurm: where placed jobs start and write unisched-JOBID.out (default /tmp)"},
      {"cluster", '\0', "ID", false,
       "clusterID to register under (default: the profile's, the context's name, or Slurm's "
       "ClusterName)"},
  };
}

}  // namespace unisched::cli
