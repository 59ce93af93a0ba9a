#include "tools/bench/kube_ingest.hpp"

#include <sys/wait.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <thread>
#include <vector>

#include "adapters/kubernetes/api_client.hpp"
#include "adapters/kubernetes/kubernetes_cluster.hpp"
#include "runtime/json_report.hpp"
#include "tools/bench/fixtures.hpp"

namespace unisched::bench {
namespace {

namespace k8s = adapters::kubernetes;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// The test API server in a child process, with its certificates, stopped when destroyed.
class TestApiServer {
 public:
  explicit TestApiServer(int nodes)
      : dir_(std::filesystem::temp_directory_path() /
             ("unisched-bench-k8s-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(dir_);
    const std::string d = dir_.string();
    const std::string make =
        "(cd " + d +
        " && openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=ca -keyout "
        "ca.key -out ca.pem && printf 'subjectAltName=IP:127.0.0.1\\n' > san.ext && for n in "
        "server client; do openssl req -newkey rsa:2048 -nodes -subj /CN=$n -keyout $n.key -out "
        "$n.csr && openssl x509 -req -days 1 -in $n.csr -CA ca.pem -CAkey ca.key -CAcreateserial "
        "-extfile san.ext -out $n.pem; done) >/dev/null 2>&1";
    if (std::system(make.c_str()) != 0) {
      problem_ = "cannot make certificates with openssl";
      return;
    }
    const std::string script = std::string(UNISCHED_SOURCE_DIR) + "/tests/kube_api/server.js";
    std::vector<std::string> args = {"/usr/bin/env",
                                     "node",
                                     script,
                                     "--cert",
                                     d + "/server.pem",
                                     "--key",
                                     d + "/server.key",
                                     "--ca",
                                     d + "/ca.pem",
                                     "--generate-nodes",
                                     std::to_string(nodes),
                                     "--log-length",
                                     "1000000"};
    pid_ = spawn_logged(std::move(args), dir_ / "server.log");
    if (pid_ == 0) {
      problem_ = "cannot start node";
    }
  }

  ~TestApiServer() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  /// The access to the server once it listens; problem() says why not.
  std::optional<k8s::ClusterAccess> access() {
    const auto deadline = Clock::now() + std::chrono::seconds(30);
    std::string log;
    while (problem_.empty() &&
           (log = read_text(dir_ / "server.log")).find("listening on ") == std::string::npos) {
      if (Clock::now() > deadline) {
        problem_ = "the test API server did not start: " + log;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (!problem_.empty()) {
      return std::nullopt;
    }
    const size_t at = log.find("listening on ") + 13;
    k8s::ClusterAccess access;
    access.server = "https://" + log.substr(at, log.find('\n', at) - at);
    access.ca_pem = read_text(dir_ / "ca.pem");
    access.client_certificate_pem = read_text(dir_ / "client.pem");
    access.client_key_pem = read_text(dir_ / "client.key");
    return access;
  }
  const std::string& problem() const { return problem_; }

 private:
  std::filesystem::path dir_;
  pid_t pid_ = 0;
  std::string problem_;
};

/// Sends `events` node changes to the server in batches of 500.
std::string send_changes(k8s::ApiClient& client, int nodes, int events) {
  for (int sent = 0; sent < events;) {
    runtime::Json batch = runtime::Json::array();
    for (int i = 0; i < 500 && sent < events; ++i, ++sent) {
      char name[32];
      std::snprintf(name, sizeof(name), "node-%05d", sent % nodes);  // as the server names them
      batch.push_back(
          {{"metadata",
            {{"name", std::string(name)}, {"labels", {{"round", std::to_string(sent)}}}}},
           {"status",
            {{"allocatable", {{"cpu", "32"}, {"memory", "128Gi"}, {"pods", "110"}}},
             {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}});
    }
    const auto response =
        client.call("POST", "/unisched-test/nodes", runtime::Json{{"put", batch}}.dump(),
                    std::chrono::seconds(60));
    if (!response.ok()) {
      return "sending changes: " + std::to_string(response.status) + " " + response.error;
    }
  }
  return {};
}

}  // namespace

KubeIngestResult kube_ingest(int nodes, int events) {
  KubeIngestResult result;
  TestApiServer server(nodes);
  const auto access = server.access();
  if (!access) {
    result.problem = server.problem();
    return result;
  }
  k8s::KubernetesOptions options;
  options.cluster_id = "bench";
  options.sync_timeout = std::chrono::seconds(120);
  const auto listing = Clock::now();
  auto cluster = k8s::KubernetesCluster::connect(*access, options);
  if (!cluster.ok()) {
    result.problem = std::string(cluster.status().message());
    return result;
  }
  result.list_seconds = seconds_since(listing);
  result.list_nodes_per_s = nodes / result.list_seconds;
  result.pages = (*cluster)->node_counters().pages.load();
  k8s::ApiClient client(*access);
  const std::string body = client.call("GET", "/api/v1/nodes", {}, std::chrono::seconds(60)).body;
  k8s::KubeReader reader;
  const auto parsing = Clock::now();
  constexpr int kRounds = 5;
  for (int i = 0; i < kRounds; ++i) {
    if (!reader.node_list(body)) {
      result.problem = "the NodeList did not parse";
    }
  }
  result.parse_nodes_per_s = kRounds * nodes / seconds_since(parsing);
  const uint64_t before = (*cluster)->node_counters().events.load();
  const auto watching = Clock::now();
  if (std::string problem = send_changes(client, nodes, events); !problem.empty()) {
    result.problem = problem;
    return result;
  }
  const auto deadline = Clock::now() + std::chrono::seconds(120);
  while ((*cluster)->node_counters().events.load() < before + static_cast<uint64_t>(events)) {
    if (Clock::now() > deadline) {
      result.problem = "the watch did not deliver every change in time";
      return result;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  result.watch_seconds = seconds_since(watching);
  result.watch_events_per_s = events / result.watch_seconds;
  return result;
}

}  // namespace unisched::bench
