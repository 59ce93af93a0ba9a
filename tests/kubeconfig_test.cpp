// Kubeconfig files read as kubectl reads them, the in-cluster service account, and cluster IDs
// made of context names.
#include "adapters/kubernetes/kubeconfig.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <string>

#include "tests/test_files.hpp"

using namespace unisched::adapters::kubernetes;
using unisched::testing::ScratchDirectory;

namespace {

// "CA PEM", "CERT PEM", "KEY PEM" in base64.
const std::string kKubeconfig = R"(apiVersion: v1
kind: Config
current-context: inline
clusters:
  - name: inline-cluster
    cluster:
      server: https://127.0.0.1:6443
      certificate-authority-data: Q0EgUEVN
  - name: file-cluster
    cluster:
      server: https://10.0.0.1:443
      certificate-authority: certs/ca.pem
      insecure-skip-tls-verify: true
contexts:
  - name: inline
    context: {cluster: inline-cluster, user: inline-user}
  - name: files
    context: {cluster: file-cluster, user: file-user}
  - name: exec
    context: {cluster: inline-cluster, user: exec-user}
  - name: lost
    context: {cluster: nowhere, user: inline-user}
users:
  - name: inline-user
    user:
      client-certificate-data: Q0VSVCBQRU0=
      client-key-data: S0VZIFBFTQ==
  - name: file-user
    user:
      tokenFile: token
  - name: exec-user
    user:
      exec:
        command: aws
)";

std::string message(const absl::Status& status) {
  return std::string(status.message());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kubeconfig)

BOOST_AUTO_TEST_CASE(inline_data_and_files_relative_to_the_kubeconfig_are_read) {
  ScratchDirectory dir;
  const std::string path = dir.write("config", kKubeconfig);
  dir.write("certs/ca.pem", "FILE CA");
  dir.write("token", "s3cr3t-token\n");
  const auto current = read_kubeconfig(path);
  BOOST_TEST_REQUIRE(current.ok(), message(current.status()));
  BOOST_TEST(current->context == "inline");
  BOOST_TEST(current->server == "https://127.0.0.1:6443");
  BOOST_TEST(current->ca_pem == "CA PEM");
  BOOST_TEST(current->client_certificate_pem == "CERT PEM");
  BOOST_TEST(current->client_key_pem == "KEY PEM");
  BOOST_TEST(!current->insecure_skip_tls_verify);
  const auto files = read_kubeconfig(path, "files");
  BOOST_TEST_REQUIRE(files.ok(), message(files.status()));
  BOOST_TEST(files->ca_pem == "FILE CA");
  BOOST_TEST(files->token == "s3cr3t-token");  // the file's newline is not part of it
  BOOST_TEST(files->insecure_skip_tls_verify);
}

BOOST_AUTO_TEST_CASE(what_cannot_be_used_is_named) {
  ScratchDirectory dir;
  const std::string path = dir.write("config", kKubeconfig);
  const auto refusal = [&](const std::string& text, const std::string& context = {}) {
    const std::string file = text.empty() ? path : dir.write("other", text);
    const auto access = read_kubeconfig(file, context);
    return access.ok() ? std::string("accepted") : message(access.status());
  };
  BOOST_TEST(refusal("", "exec") ==
             path +
                 ": users[2].user.exec: not supported yet: give the user a token, a token file "
                 "or a client certificate (e.g. a service account's token)");
  BOOST_TEST(refusal("", "nope") == path + ": contexts: no context named \"nope\"");
  BOOST_TEST(refusal("", "lost") ==
             path + ": contexts[3].context.cluster: no cluster named \"nowhere\"");
  BOOST_TEST(refusal("", "files").find("cannot read") != std::string::npos);  // no ca.pem yet
  BOOST_TEST(refusal("clusters: [\n").find("not YAML") != std::string::npos);
  BOOST_TEST(refusal("clusters: []\n").find("current-context: Required value") !=
             std::string::npos);
  const std::string plain =
      "current-context: c\ncontexts: [{name: c, context: {cluster: k}}]\n"
      "clusters: [{name: k, cluster: {server: 'http://127.0.0.1:8080'}}]\n";
  BOOST_TEST(refusal(plain).find("clusters[0].cluster.server: Invalid value") != std::string::npos);
  const std::string bad_data =
      "current-context: c\ncontexts: [{name: c, context: {cluster: k}}]\n"
      "clusters: [{name: k, cluster: {server: 'https://h', certificate-authority-data: '%%%'}}]\n";
  BOOST_TEST(refusal(bad_data).find("certificate-authority-data: Invalid value: not base64") !=
             std::string::npos);
  BOOST_TEST(message(read_kubeconfig(dir.path() + "/absent").status()).find("cannot read") == 0u);
}

// Found by fuzzing (tests/fuzz/corpus/kubeconfig/crash-*): yaml-cpp throws when a key is looked
// up in a scalar or a sequence, which ended the process.
BOOST_AUTO_TEST_CASE(a_kubeconfig_of_the_wrong_shape_is_refused_not_thrown) {
  ScratchDirectory dir;
  const auto refusal = [&](const std::string& text) {
    const std::string file = dir.write("shape", text);
    const auto access = read_kubeconfig(file);
    return access.ok() ? std::string("accepted") : message(access.status());
  };
  BOOST_TEST(refusal("just a string\n") ==
             dir.path() + "/shape: not a kubeconfig: its top level must be a mapping");
  BOOST_TEST(refusal("- a\n- b\n").find("not a kubeconfig") != std::string::npos);
  BOOST_TEST(refusal("current-context: c\ncontexts: [{name: c, context: scalar}]\n")
                 .find("contexts[0].context: Invalid type: must be a mapping") !=
             std::string::npos);
  BOOST_TEST(refusal("current-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\n"
                     "clusters: [{name: k, cluster: {server: 'https://h'}}]\n"
                     "users: [{name: u, user: [exec]}]\n")
                 .find("users[0].user: Invalid type: must be a mapping") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(in_a_pod_the_service_account_is_used) {
  ScratchDirectory dir;
  dir.write("account/token", "pod-token");
  dir.write("account/ca.crt", "POD CA");
  ::unsetenv("KUBERNETES_SERVICE_HOST");
  BOOST_TEST(message(in_cluster_access(dir.path() + "/account").status()).find("not in a pod") !=
             std::string::npos);
  ::setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
  ::setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  const auto access = in_cluster_access(dir.path() + "/account");
  ::unsetenv("KUBERNETES_SERVICE_HOST");
  ::unsetenv("KUBERNETES_SERVICE_PORT");
  BOOST_TEST_REQUIRE(access.ok(), message(access.status()));
  BOOST_TEST(access->server == "https://10.96.0.1:443");
  BOOST_TEST(access->token == "pod-token");
  BOOST_TEST(access->ca_pem == "POD CA");
}

BOOST_AUTO_TEST_CASE(context_names_become_cluster_ids_or_ask_for_one) {
  BOOST_TEST(*cluster_id_from_context("arn:aws:eks:us-west-2:123456789012:cluster/prod") ==
             "arn-aws-eks-us-west-2-123456789012-cluster-prod");
  BOOST_TEST(*cluster_id_from_context("gke_my-project_europe-west4_Main") ==
             "gke-my-project-europe-west4-main");
  BOOST_TEST(*cluster_id_from_context("kind-kind") == "kind-kind");
  const auto too_long = cluster_id_from_context(std::string(70, 'a'));
  BOOST_TEST_REQUIRE(!too_long.ok());
  BOOST_TEST(message(too_long.status()).find("give --cluster ID") != std::string::npos);
  BOOST_TEST(!cluster_id_from_context("::").ok());
}

BOOST_AUTO_TEST_SUITE_END()
