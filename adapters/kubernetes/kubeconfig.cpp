#include "adapters/kubernetes/kubeconfig.hpp"

#include <absl/strings/escaping.h>
#include <yaml-cpp/yaml.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "model/names.hpp"

namespace unisched::adapters::kubernetes {
namespace {

std::optional<std::string> read_text(const std::filesystem::path& path) {
  std::ifstream file(path);
  if (!file) {
    return std::nullopt;
  }
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

/// `node[key]` when `node` is a mapping with that key; an undefined node otherwise (yaml-cpp
/// throws on a key looked up in a scalar or a sequence).
YAML::Node child(const YAML::Node& node, const char* key) {
  return node && node.IsMap() && node[key] ? node[key] : YAML::Node(YAML::NodeType::Undefined);
}

std::string scalar(const YAML::Node& node, const char* key) {
  const YAML::Node value = child(node, key);
  return value && value.IsScalar() ? value.as<std::string>() : std::string();
}

/// The entry of `list` (clusters, users, contexts) named `name`, with its index.
std::optional<YAML::Node> named(const YAML::Node& list, const std::string& name, size_t& index) {
  for (index = 0; list.IsSequence() && index < list.size(); ++index) {
    const YAML::Node entry = list[index];
    if (entry.IsMap() && scalar(entry, "name") == name) {
      return entry;
    }
  }
  return std::nullopt;
}

/// A credential given inline (KEY-data, base64) or as a file (KEY, relative to the kubeconfig).
absl::StatusOr<std::string> material(const YAML::Node& owner, const std::string& path,
                                     const std::string& key, const std::filesystem::path& base) {
  if (const std::string data = scalar(owner, (key + "-data").c_str()); !data.empty()) {
    std::string decoded;
    if (!absl::Base64Unescape(data, &decoded)) {
      return absl::InvalidArgumentError(path + "." + key + "-data: Invalid value: not base64");
    }
    return decoded;
  }
  const std::string file = scalar(owner, key.c_str());
  if (file.empty()) {
    return std::string();
  }
  const std::filesystem::path resolved =
      std::filesystem::path(file).is_absolute() ? std::filesystem::path(file) : base / file;
  auto text = read_text(resolved);
  if (!text) {
    return absl::InvalidArgumentError(path + "." + key + ": cannot read " + resolved.string());
  }
  return *text;
}

std::optional<std::string> read_cluster(const YAML::Node& entry, const std::string& path,
                                        const std::filesystem::path& base, ClusterAccess& access) {
  const YAML::Node cluster = child(entry, "cluster");
  if (cluster && !cluster.IsMap()) {
    return path + ".cluster: Invalid type: must be a mapping";
  }
  access.server = scalar(cluster, "server");
  if (access.server.rfind("https://", 0) != 0) {
    return path + ".cluster.server: Invalid value: \"" + access.server +
           "\": must be an https:// address";
  }
  access.insecure_skip_tls_verify = scalar(cluster, "insecure-skip-tls-verify") == "true";
  auto ca = material(cluster, path + ".cluster", "certificate-authority", base);
  if (!ca.ok()) {
    return std::string(ca.status().message());
  }
  access.ca_pem = *ca;
  return std::nullopt;
}

std::optional<std::string> read_user(const YAML::Node& entry, const std::string& path,
                                     const std::filesystem::path& base, ClusterAccess& access) {
  const YAML::Node user = child(entry, "user");
  if (user && !user.IsMap()) {
    return path + ".user: Invalid type: must be a mapping";
  }
  for (const char* unsupported : {"exec", "auth-provider"}) {
    if (child(user, unsupported)) {
      return path + ".user." + unsupported +
             ": not supported yet: give the user a token, a token file or a client certificate "
             "(e.g. a service account's token)";
    }
  }
  auto certificate = material(user, path + ".user", "client-certificate", base);
  auto key = material(user, path + ".user", "client-key", base);
  if (!certificate.ok() || !key.ok()) {
    return std::string(!certificate.ok() ? certificate.status().message() : key.status().message());
  }
  access.client_certificate_pem = *certificate;
  access.client_key_pem = *key;
  if (access.client_certificate_pem.empty() != access.client_key_pem.empty()) {
    return path + ".user: a client certificate needs its key, and a key its certificate";
  }
  access.token = scalar(user, "token");
  if (const std::string token_file = scalar(user, "tokenFile");
      access.token.empty() && !token_file.empty()) {
    auto token = read_text(std::filesystem::path(token_file).is_absolute()
                               ? std::filesystem::path(token_file)
                               : base / token_file);
    if (!token) {
      return path + ".user.tokenFile: cannot read " + token_file;
    }
    access.token = *token;
  }
  while (!access.token.empty() && std::isspace(static_cast<unsigned char>(access.token.back()))) {
    access.token.pop_back();
  }
  return std::nullopt;
}

}  // namespace

absl::StatusOr<ClusterAccess> read_kubeconfig(const std::string& path, const std::string& context) {
  const auto text = read_text(path);
  if (!text) {
    return absl::InvalidArgumentError("cannot read the kubeconfig " + path);
  }
  YAML::Node config;
  try {
    config = YAML::Load(*text);
  } catch (const YAML::Exception& error) {
    return absl::InvalidArgumentError(path + ": not YAML: " + error.what());
  }
  if (!config.IsMap()) {
    return absl::InvalidArgumentError(path + ": not a kubeconfig: its top level must be a mapping");
  }
  ClusterAccess access;
  access.source = path;
  access.context = context.empty() ? scalar(config, "current-context") : context;
  if (access.context.empty()) {
    return absl::InvalidArgumentError(path +
                                      ": current-context: Required value (or give --context)");
  }
  size_t index = 0;
  const auto chosen = named(child(config, "contexts"), access.context, index);
  if (!chosen) {
    return absl::InvalidArgumentError(path + ": contexts: no context named \"" + access.context +
                                      "\"");
  }
  const std::string context_path = path + ": contexts[" + std::to_string(index) + "]";
  if (const YAML::Node context = child(*chosen, "context"); context && !context.IsMap()) {
    return absl::InvalidArgumentError(context_path + ".context: Invalid type: must be a mapping");
  }
  const std::string cluster_name = scalar(child(*chosen, "context"), "cluster");
  const std::string user_name = scalar(child(*chosen, "context"), "user");
  const std::filesystem::path base = std::filesystem::path(path).parent_path();
  const auto cluster = named(child(config, "clusters"), cluster_name, index);
  if (!cluster) {
    return absl::InvalidArgumentError(context_path + ".context.cluster: no cluster named \"" +
                                      cluster_name + "\"");
  }
  if (auto problem = read_cluster(*cluster, path + ": clusters[" + std::to_string(index) + "]",
                                  base, access)) {
    return absl::InvalidArgumentError(*problem);
  }
  if (!user_name.empty()) {
    const auto user = named(child(config, "users"), user_name, index);
    if (!user) {
      return absl::InvalidArgumentError(context_path + ".context.user: no user named \"" +
                                        user_name + "\"");
    }
    if (auto problem =
            read_user(*user, path + ": users[" + std::to_string(index) + "]", base, access)) {
      return absl::InvalidArgumentError(*problem);
    }
  }
  return access;
}

absl::StatusOr<ClusterAccess> in_cluster_access(const std::string& account_dir) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (host == nullptr || port == nullptr) {
    return absl::FailedPreconditionError(
        "no --kubeconfig, and not in a pod (KUBERNETES_SERVICE_HOST and _PORT are unset)");
  }
  const std::string address = std::string(host).find(':') != std::string::npos
                                  ? "[" + std::string(host) + "]"  // IPv6
                                  : std::string(host);
  ClusterAccess access;
  access.source = "in-cluster";
  access.server = "https://" + address + ":" + port;
  const auto token = read_text(account_dir + "/token");
  const auto ca = read_text(account_dir + "/ca.crt");
  if (!token || !ca) {
    return absl::FailedPreconditionError("cannot read the service account's token and ca.crt in " +
                                         account_dir);
  }
  access.token = *token;
  access.ca_pem = *ca;
  return access;
}

absl::StatusOr<std::string> cluster_id_from_context(const std::string& context) {
  // Not cut to 63 characters: a longer name asks for --cluster rather than becoming a prefix.
  const std::string id = model::dns1123_label_from(context, std::string::npos);
  if (const std::string reason = model::check_cluster_id(id); !reason.empty()) {
    return absl::InvalidArgumentError("the context name \"" + context +
                                      "\" makes no clusterID (\"" + id + "\": " + reason +
                                      "): give --cluster ID");
  }
  return id;
}

}  // namespace unisched::adapters::kubernetes
