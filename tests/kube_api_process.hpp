// The project's test Kubernetes API server (tests/kube_api/server.js) in a child process: HTTPS
// on a free loopback port with a client certificate, a kubeconfig for it, and the access the
// adapter uses. Nothing here includes CAF.
#pragma once

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "adapters/kubernetes/api_client.hpp"
#include "adapters/kubernetes/kubeconfig.hpp"
#include "tests/certificates.hpp"
#include "tests/child_process.hpp"
#include "tests/eventually.hpp"
#include "tests/json.hpp"
#include "tests/shared_data.hpp"
#include "tests/test_files.hpp"

namespace unisched::testing {

inline std::string k8s_data(const std::string& name) {
  return vendored_path("k8s-api/" + name).string();
}

struct KubeApiServer {
  ScratchDirectory dir;
  std::unique_ptr<ChildProcess> process;
  std::string address;
  std::string kubeconfig;

  /// Starts the server with `flags` (--nodes FILE, --pods FILE, --generate-nodes N, ...).
  explicit KubeApiServer(std::vector<std::string> flags) : flags_(std::move(flags)) {
    make_certificates(dir.path(), {{"apiserver", "ca"}, {"client", "ca"}});
    start("0");
    kubeconfig = dir.write("kubeconfig",
                           "apiVersion: v1\nkind: Config\ncurrent-context: test\n"
                           "clusters:\n- name: test\n  cluster:\n    server: https://" +
                               address +
                               "\n    certificate-authority: ca.pem\n"
                               "users:\n- name: test\n  user:\n"
                               "    client-certificate: client.pem\n"
                               "    client-key: client.key\n"
                               "contexts:\n- name: test\n"
                               "  context: {cluster: test, user: test}\n");
  }

  /// Stops the server and starts it again on the same port, from `flags` when given: its state
  /// starts over, at a lower resourceVersion than before.
  void restart(std::vector<std::string> flags = {}) {
    if (!flags.empty()) {
      flags_ = std::move(flags);
    }
    process->stop();
    start(address.substr(address.rfind(':') + 1));
  }

  adapters::kubernetes::ClusterAccess access() const {
    auto access = adapters::kubernetes::read_kubeconfig(kubeconfig);
    BOOST_TEST_REQUIRE(access.ok(), std::string(access.status().message()));
    return *access;
  }

  /// One of the server's test controls (tests/kube_api/server.js: nodes, drop-watches, compact,
  /// raw-event, hold-watches, release-watches), failing the test when it is refused.
  void control(const std::string& action, const Json& body = Json::object()) const {
    adapters::kubernetes::ApiClient client(access());
    const auto response =
        client.call("POST", "/unisched-test/" + action, body.dump(), std::chrono::seconds(10));
    BOOST_TEST_REQUIRE(response.ok(), action << ": " << response.status << " " << response.body);
  }

 private:
  void start(const std::string& port) {
    std::vector<std::string> args = {"/usr/bin/env",
                                     "node",
                                     std::string(UNISCHED_SOURCE_DIR) + "/tests/kube_api/server.js",
                                     "--cert",
                                     dir.path() + "/apiserver.pem",
                                     "--key",
                                     dir.path() + "/apiserver.key",
                                     "--ca",
                                     dir.path() + "/ca.pem",
                                     "--port",
                                     port};
    args.insert(args.end(), flags_.begin(), flags_.end());
    process = std::make_unique<ChildProcess>(args, dir.path() + "/apiserver.log");
    eventually([&] { return process->output().find("listening on ") != std::string::npos; },
               "the test API server listening");
    const std::string log = process->output();
    const size_t at = log.find("listening on ") + 13;
    address = log.substr(at, log.find('\n', at) - at);
  }

  std::vector<std::string> flags_;
};

}  // namespace unisched::testing
