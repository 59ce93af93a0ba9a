#include "simulation/workload.hpp"

#include <absl/strings/str_cat.h>

#include <stdexcept>

#include "model/manifest.hpp"

namespace unisched::simulation {

model::ClusterResourceProfile simulation_profile(const std::string& cluster_id) {
  const std::string yaml = absl::StrCat(R"(apiVersion: scheduling.cluster.io/v1
kind: ClusterResourceProfile
metadata:
  name: )",
                                        cluster_id, R"(
spec:
  clusterID: )",
                                        cluster_id, R"(
  topology:
    region: r1
    zone: z1
  nodeGroups:
    - name: gpu
      count: 3
      node:
        cpu: "32"
        memory: 256Gi
        accelerators:
          - model: A100
            count: 4
            topology: NVLink
            memoryPerGPU: 80Gi
    - name: cpu
      count: 4
      node:
        cpu: "16"
        memory: 64Gi
)");
  const auto decoded = model::decode_manifest({yaml, 1});
  if (!decoded.manifest ||
      !std::holds_alternative<model::ClusterResourceProfile>(*decoded.manifest)) {
    throw std::logic_error("the simulation's cluster profile does not decode");
  }
  return std::get<model::ClusterResourceProfile>(*decoded.manifest);
}

namespace {

int uniform(std::mt19937_64& random, int low, int high) {
  return std::uniform_int_distribution<int>(low, high)(random);
}

std::string document(const std::string& name, int replicas, const std::string& resources,
                     const std::string& distribution) {
  return absl::StrCat("apiVersion: scheduling.cluster.io/v1\nkind: SchedulingRequest\n",
                      "metadata:\n  name: ", name, "\nspec:\n  replicas: ", replicas,
                      "\n  resources:\n", resources, distribution);
}

}  // namespace

SimulatedRequest draw_request(int index, std::mt19937_64& random) {
  SimulatedRequest request;
  request.name = absl::StrCat("r", index);
  std::string resources;
  std::string distribution;
  switch (uniform(random, 0, 4)) {
    case 0:  // whole GPUs
      request.replicas = uniform(random, 1, 2);
      resources = absl::StrCat("    cpu: \"4\"\n    memory: 16Gi\n    accelerators:\n",
                               "      - model: A100\n        count: ", uniform(random, 1, 4), "\n");
      break;
    case 1:  // a share of a GPU
      request.replicas = uniform(random, 1, 3);
      resources = absl::StrCat("    cpu: \"1\"\n    memory: 4Gi\n    accelerators:\n",
                               "      - model: A100\n        share: ",
                               uniform(random, 0, 1) == 0 ? "250m" : "500m", "\n");
      break;
    case 2:  // a host port: at most one replica per node
      request.replicas = uniform(random, 1, 4);
      resources = "    cpu: \"1\"\n    memory: 1Gi\n    hostPorts: [8080]\n";
      break;
    case 3:  // a gang spread across clusters
      request.replicas = uniform(random, 3, 6);
      request.gang = true;
      resources = "    cpu: \"2\"\n    memory: 4Gi\n";
      distribution = "  distribution:\n    mode: Spread\n    gang: true\n";
      break;
    default:  // a gang kept in one cluster
      request.replicas = uniform(random, 2, 4);
      request.gang = true;
      resources = absl::StrCat("    cpu: \"4\"\n    memory: 8Gi\n    accelerators:\n",
                               "      - model: A100\n        count: 1\n");
      distribution = "  distribution:\n    mode: Together\n    gang: true\n";
  }
  request.manifest = document(request.name, request.replicas, resources, distribution);
  return request;
}

SimulatedRequest probe_request(const std::string& cluster_id) {
  SimulatedRequest request;
  request.name = absl::StrCat("probe-", cluster_id);
  request.manifest =
      document(request.name, 1, "    cpu: 100m\n    memory: 64Mi\n",
               absl::StrCat("  placement:\n    affinity:\n      clusters: [", cluster_id, "]\n"));
  return request;
}

}  // namespace unisched::simulation
