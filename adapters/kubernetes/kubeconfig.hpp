// How to reach a Kubernetes API server, read as kubectl reads it: a kubeconfig file (server,
// CA, client certificate and key, bearer token, insecure-skip-tls-verify; files or inline data;
// paths relative to the kubeconfig), or the pod's own service account when running in-cluster.
// Users that run a program (exec) or an auth-provider are refused with a clear error.
#pragma once

#include <string>

#include <absl/status/statusor.h>

namespace unisched::adapters::kubernetes {

struct ClusterAccess {
  std::string server;  ///< https://HOST:PORT
  std::string ca_pem;  ///< the CA that signed the server's certificate; empty: the system's
  std::string client_certificate_pem;
  std::string client_key_pem;
  std::string token;  ///< sent as "Authorization: Bearer TOKEN"
  bool insecure_skip_tls_verify = false;
  std::string context;  ///< the kubeconfig context used ("" in-cluster)
  std::string source;   ///< the kubeconfig's path, or "in-cluster"
};

/// The access `context` of the kubeconfig at `path` gives (its current-context when empty);
/// an InvalidArgument error naming the file, the field and the reason otherwise.
absl::StatusOr<ClusterAccess> read_kubeconfig(const std::string& path,
                                              const std::string& context = {});

/// The service account's access from inside a pod: KUBERNETES_SERVICE_HOST and _PORT, and the
/// token and CA under `account_dir`.
absl::StatusOr<ClusterAccess> in_cluster_access(
    const std::string& account_dir = "/var/run/secrets/kubernetes.io/serviceaccount");

/// A clusterID from a kubeconfig context name ("arn:aws:eks:us-west-2:1234:cluster/prod" becomes
/// "arn-aws-eks-us-west-2-1234-cluster-prod"); an error asking for --cluster when no DNS-1123
/// label can be made of it.
absl::StatusOr<std::string> cluster_id_from_context(const std::string& context);

}  // namespace unisched::adapters::kubernetes
