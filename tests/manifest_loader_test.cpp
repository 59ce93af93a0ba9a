#include "runtime/manifest_loader.hpp"

#include <boost/test/unit_test.hpp>

#include <sstream>

#include "tests/test_files.hpp"

using namespace unisched::runtime;
using unisched::testing::ScratchDirectory;

namespace {

const std::string kFixture = std::string(UNISCHED_SOURCE_DIR) + "/tests/data/mixed.yaml";

std::string profile(const std::string& name, const std::string& cluster_id) {
  return "apiVersion: scheduling.cluster.io/v1\nkind: ClusterResourceProfile\nmetadata:\n  name: " +
         name + "\nspec:\n  clusterID: " + cluster_id +
         "\n  compute:\n    cpu: 1\n    memory: 1Gi\n";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(manifest_loader)

BOOST_AUTO_TEST_CASE(bad_documents_do_not_lose_good_ones) {
  const ManifestSet set = load_manifests({kFixture});
  BOOST_TEST(set.files_read == 1u);
  BOOST_TEST(set.documents_seen == 4u);
  BOOST_TEST_REQUIRE(set.manifests.size() == 2u);
  BOOST_TEST(unisched::model::name_of(set.manifests[0].manifest) == "good");
  BOOST_TEST(unisched::model::name_of(set.manifests[1].manifest) == "ok");
  BOOST_TEST(set.manifests[1].source.index == 3);
  BOOST_TEST_REQUIRE(set.problems.size() == 3u);
  BOOST_TEST(set.problems[0].to_string() ==
             kFixture +
                 ":19: document 1 (ClusterResourceProfile/bad): spec.compute.cpu: "
                 "Invalid value: \"-4\": must be greater than 0");
  BOOST_TEST(set.problems[1].to_string() ==
             kFixture +
                 ":23: document 1 (ClusterResourceProfile/bad): "
                 "spec.accelerators[0].count: Invalid value: 0: must be greater than or "
                 "equal to 1");
  BOOST_TEST(set.problems[2].to_string().find(kFixture + ":2") == 0u, set.problems[2].to_string());
  BOOST_TEST(set.problems[2].to_string().find(
                 "document 2: Malformed YAML: end of map flow not found") != std::string::npos,
             set.problems[2].to_string());
}

BOOST_AUTO_TEST_CASE(directories_contribute_manifest_files_in_order) {
  ScratchDirectory dir;
  dir.write("b.yaml", profile("b", "b"));
  dir.write("a.yml", profile("a", "a"));
  dir.write("notes.txt", "not a manifest");
  dir.write("sub/c.json",
            R"({"apiVersion":"scheduling.cluster.io/v1","kind":"ClusterResourceProfile",
                "metadata":{"name":"c"},"spec":{"clusterID":"c","compute":{"cpu":1,"memory":"1Gi"}}})");
  const ManifestSet flat = load_manifests({dir.path()});
  BOOST_TEST(flat.problems.empty());
  BOOST_TEST_REQUIRE(flat.manifests.size() == 2u);
  BOOST_TEST(unisched::model::name_of(flat.manifests[0].manifest) == "a");
  const ManifestSet deep = load_manifests({dir.path()}, LoadOptions{true});
  BOOST_TEST(deep.manifests.size() == 3u);
}

BOOST_AUTO_TEST_CASE(documents_of_other_apis_in_a_directory_are_left_alone) {
  ScratchDirectory dir;
  const std::string role =
      "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: r\n";
  dir.write("a.yaml", profile("a", "a") + "---\n" + role);
  const std::string typo = dir.write(
      "typo.yaml", "apiVersion: scheduling.cluster.io/v2\nkind: ClusterResourceProfile\n");
  const ManifestSet walked = load_manifests({dir.path()});
  BOOST_TEST(walked.manifests.size() == 1u);
  BOOST_TEST_REQUIRE(walked.other_apis.size() == 1u);
  BOOST_TEST(walked.other_apis[0].index == 1);
  // Our own group with a wrong version is a problem, not another API.
  BOOST_TEST_REQUIRE(!walked.problems.empty());
  for (const auto& problem : walked.problems) {
    BOOST_TEST(problem.source.file == typo);
  }
  BOOST_TEST(walked.problems[0].to_string().find("scheduling.cluster.io/v2") != std::string::npos);
  // A file named on its own is read for what it claims to be.
  const ManifestSet named = load_manifests({dir.write("role.yaml", role)});
  BOOST_TEST(named.other_apis.empty());
  BOOST_TEST(named.problems.size() == 2u);  // apiVersion and kind
}

BOOST_AUTO_TEST_CASE(missing_paths_and_empty_directories_are_problems) {
  ScratchDirectory dir;
  const ManifestSet set = load_manifests({dir.path() + "/nope.yaml", dir.path()});
  BOOST_TEST_REQUIRE(set.problems.size() == 2u);
  BOOST_TEST(set.problems[0].to_string() == dir.path() + "/nope.yaml: no such file or directory");
  BOOST_TEST(set.problems[1].to_string().find("holds no .yaml") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(duplicate_identities_keep_the_first) {
  ScratchDirectory dir;
  const auto first = dir.write("1.yaml", profile("one", "shared-id"));
  dir.write("2.yaml", profile("two", "shared-id") + "---\n" + profile("one", "other"));
  const ManifestSet set = load_manifests({dir.path()});
  BOOST_TEST_REQUIRE(set.manifests.size() == 1u);
  BOOST_TEST(unisched::model::name_of(set.manifests[0].manifest) == "one");
  BOOST_TEST_REQUIRE(set.problems.size() == 2u);
  BOOST_TEST(set.problems[0].message ==
             "spec.clusterID: Duplicate value: \"shared-id\": already "
             "defined in " +
                 first + " document 0");
  BOOST_TEST(set.problems[1].message.find("metadata.name: Duplicate value: \"one\"") == 0u);
}

BOOST_AUTO_TEST_CASE(binary_garbage_is_a_problem_not_a_crash) {
  ScratchDirectory dir;
  const auto file = dir.write("garbage.yaml", std::string("\x00\xff\xfe{[:\n\t- ]]", 12));
  const ManifestSet set = load_manifests({file});
  BOOST_TEST(set.manifests.empty());
  BOOST_TEST(!set.problems.empty());
}

BOOST_AUTO_TEST_CASE(a_manifest_over_3_mib_is_refused_whole_and_unread) {
  ScratchDirectory dir;
  const std::string fits = dir.write("fits.yaml", profile("small", "small-id"));
  std::string huge = profile("big", "big-id") + "# " + std::string(kMaxManifestBytes, 'x') + "\n";
  const std::string big = dir.write("big.yaml", huge);
  const ManifestSet set = load_manifests({fits, big});
  BOOST_TEST(set.manifests.size() == 1u);  // the file that fits is kept
  BOOST_TEST_REQUIRE(set.problems.size() == 1u);
  BOOST_TEST(set.problems[0].to_string() ==
             big + ": " + big + " is " + std::to_string(huge.size()) +
                 " bytes; a manifest may be at most 3145728 bytes (3 MiB): split it into "
                 "several files");
  ManifestSet submitted;
  load_manifest_text(huge, "<submitted>", submitted);
  BOOST_TEST(submitted.manifests.empty());
  BOOST_TEST(submitted.documents_seen == 0u);
  BOOST_TEST_REQUIRE(submitted.problems.size() == 1u);
  BOOST_TEST(submitted.problems[0].message.find("at most 3145728 bytes") != std::string::npos);
  std::istringstream stream(huge);
  std::string read;
  BOOST_TEST(!read_manifest_stream(stream, read));
  BOOST_TEST(read.size() == kMaxManifestBytes + 1);
}

BOOST_AUTO_TEST_CASE(duplicate_keys_are_found_among_many) {
  // The check once compared every key with every earlier one: 100k labels took 17 s.
  std::string labels;
  for (int i = 0; i < 50000; ++i) {
    labels += "    k" + std::to_string(i) + ": v\n";
  }
  const std::string text =
      "apiVersion: scheduling.cluster.io/v1\nkind: SchedulingRequest\nmetadata:\n  name: many\n"
      "  labels:\n" +
      labels +
      "    k123: again\nspec:\n  replicas: 1\n  resources:\n"
      "    cpu: \"1\"\n    memory: 1Gi\n";
  ManifestSet set;
  load_manifest_text(text, "many.yaml", set);
  BOOST_TEST(set.manifests.empty());
  BOOST_TEST_REQUIRE(set.problems.size() == 1u);
  BOOST_TEST(set.problems[0].to_string() ==
             "many.yaml:50006: document 0 (SchedulingRequest/many): metadata.labels.k123: "
             "Duplicate value: the field is given more than once");
}

BOOST_AUTO_TEST_SUITE_END()
