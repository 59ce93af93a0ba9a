#include "model/cluster_profile.hpp"

#include <boost/test/unit_test.hpp>
#include <filesystem>

#include "model/manifest.hpp"
#include "tests/manifest_helpers.hpp"
#include "tests/shared_data.hpp"
#include "tests/test_files.hpp"

using namespace unisched::model;
using unisched::testing::decode;
using unisched::testing::error_at;
using unisched::testing::expect_single_error;
using unisched::testing::with;

namespace {

const std::string kSeedExample =
    std::string(UNISCHED_SOURCE_DIR) + "/config/profiles/design-example.yaml";

const std::string kBase = R"(apiVersion: scheduling.cluster.io/v1
kind: ClusterResourceProfile
metadata:
  name: test
spec:
  clusterID: test
  compute:
    cpu: "64"
    memory: 256Gi
  accelerators:
    - model: A10
      count: 8
      memoryPerGPU: 24Gi
  storage:
    - class: ssd
      capacity: 1Ti
)";

const std::string kWithGroups = R"(apiVersion: scheduling.cluster.io/v1
kind: ClusterResourceProfile
metadata:
  name: grouped
spec:
  clusterID: grouped
  machineType: BareMetal
  topology:
    zone: z1
  nodeGroups:
    - name: gpu
      count: 2
      node:
        cpu: "8"
        memory: 64Gi
        accelerators:
          - model: L4
            count: 4
            memoryPerGPU: 24Gi
    - name: cpu
      count: 3
      machineType: VirtualMachine
      zone: z2
      node:
        cpu: 1500m
        memory: 4Gi
)";

const ClusterResourceProfile& profile_of(const DecodedManifest& decoded) {
  BOOST_TEST_REQUIRE(decoded.manifest.has_value(), unisched::testing::all_errors(decoded));
  return std::get<ClusterResourceProfile>(*decoded.manifest);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cluster_profile)

BOOST_AUTO_TEST_CASE(the_seeds_example_parses) {
  const auto decoded = decode(unisched::testing::read_file(kSeedExample));
  const ClusterResourceProfile& profile = profile_of(decoded);
  const ClusterProfileSpec& spec = profile.spec;
  BOOST_TEST(profile.metadata.name == "cluster-a-gpu-profile");
  BOOST_TEST(spec.cluster_id == "cluster-azure-eastus-01");
  BOOST_TEST(*spec.compute->cpu.milli_value() == 32'000);
  BOOST_TEST(*spec.compute->memory.value() == int64_t{128} << 30);
  BOOST_TEST_REQUIRE(spec.accelerators.size() == 1u);
  const AcceleratorSpec& gpus = spec.accelerators[0];
  BOOST_TEST((gpus.type == AcceleratorType::GPU));  // derived from the resource name
  BOOST_TEST(gpus.resource == "nvidia.com/gpu");
  BOOST_TEST(gpus.model == "A100");
  BOOST_TEST(gpus.count == 8);
  BOOST_TEST((gpus.topology == Interconnect::NVLink));
  BOOST_TEST(gpus.link_generation == 4);
  BOOST_TEST(*gpus.memory_per_device.value() == int64_t{80} << 30);
  BOOST_TEST(spec.network.bandwidth->bits_per_second() == 40'000'000'000ULL);
  BOOST_TEST(spec.network.latency->max_nanoseconds() == 999'999);
  BOOST_TEST(spec.storage[0].storage_class == "ssd-premium");
  BOOST_TEST(spec.storage[0].capacity.to_string() == "10Ti");
  BOOST_TEST(spec.topology.region == "eastus");
  BOOST_TEST(spec.topology.zone == "zone-1");
  BOOST_TEST(spec.topology.node_group == "gpu-workload");
  BOOST_TEST(*spec.node_count == 1);  // documented default without nodeGroups
  BOOST_TEST((spec.machine_type == MachineType::VirtualMachine));
}

BOOST_AUTO_TEST_CASE(the_seeds_example_round_trips_in_its_own_words) {
  const auto decoded = decode(unisched::testing::read_file(kSeedExample));
  const std::string written = render_manifests({*decoded.manifest}, OutputFormat::Yaml);
  BOOST_TEST(written.find("type: nvidia.com/gpu") != std::string::npos, written);
  BOOST_TEST(written.find("topology: NVLink-4") != std::string::npos, written);
  const auto again = decode(written);
  BOOST_TEST(profile_of(again).spec.accelerators[0].link_generation == 4);
  BOOST_TEST(render_manifests({*again.manifest}, OutputFormat::Yaml) == written);
}

BOOST_AUTO_TEST_CASE(totals_are_derived_from_node_groups) {
  const auto decoded = decode(kWithGroups);
  const ClusterProfileSpec& spec = profile_of(decoded).spec;
  BOOST_TEST(spec.compute->cpu.to_string() == "20500m");  // 2 x 8 + 3 x 1.5
  BOOST_TEST(spec.compute->memory.to_string() == "140Gi");
  BOOST_TEST_REQUIRE(spec.accelerators.size() == 1u);
  BOOST_TEST(spec.accelerators[0].count == 8);
  BOOST_TEST(*spec.node_count == 5);
  BOOST_TEST((*spec.node_groups[0].machine_type == MachineType::BareMetal));  // inherited
  BOOST_TEST((*spec.node_groups[1].machine_type == MachineType::VirtualMachine));
  BOOST_TEST(spec.node_groups[0].zone == "z1");  // inherited from spec.topology.zone
  BOOST_TEST(spec.node_groups[1].zone == "z2");
  BOOST_TEST(spec.node_groups[0].node.max_pods == 110);
}

BOOST_AUTO_TEST_CASE(given_totals_must_match_node_groups) {
  const std::string yaml = with(kWithGroups, "  nodeGroups:\n",
                                "  compute:\n    cpu: \"20\"\n    memory: 140Gi\n"
                                "  accelerators:\n    - model: L4\n      count: 6\n"
                                "      memoryPerGPU: 24Gi\n  nodeCount: 4\n  nodeGroups:\n");
  const auto decoded = decode(yaml);
  BOOST_TEST(decoded.errors.size() == 3u, unisched::testing::all_errors(decoded));
  const auto* cpu = error_at(decoded, "spec.compute.cpu");
  BOOST_TEST_REQUIRE(cpu != nullptr);
  BOOST_TEST(cpu->to_string() ==
             "spec.compute.cpu: Invalid value: \"20\": must equal the total over spec.nodeGroups "
             "(20500m)");
  BOOST_TEST(error_at(decoded, "spec.accelerators[0].count") != nullptr);
  BOOST_TEST(error_at(decoded, "spec.nodeCount") != nullptr);
}

BOOST_AUTO_TEST_CASE(accelerators_in_groups_must_be_listed_in_totals) {
  const std::string yaml = with(kWithGroups, "  nodeGroups:\n",
                                "  accelerators:\n    - model: T4\n      count: 0\n"
                                "      memoryPerGPU: 16Gi\n  nodeGroups:\n");
  const auto decoded = decode(yaml);
  BOOST_TEST(error_at(decoded, "spec.accelerators[0].count") != nullptr);  // count >= 1 first
  const auto fixed = decode(with(yaml, "count: 0", "count: 1"));
  BOOST_TEST(error_at(fixed, "spec.accelerators[0].count") != nullptr);  // no T4 in groups
  const auto* missing = error_at(fixed, "spec.accelerators");
  BOOST_TEST_REQUIRE(missing != nullptr);
  BOOST_TEST(missing->detail.find("8 GPU L4 devices") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(profile_without_compute_or_groups_is_refused) {
  expect_single_error(with(kBase, "  compute:\n    cpu: \"64\"\n    memory: 256Gi\n", ""),
                      "spec.compute", FieldErrorType::Required, "spec.nodeGroups");
}

BOOST_AUTO_TEST_CASE(wrong_types_are_named) {
  expect_single_error(with(kBase, "count: 8", "count: \"8\""), "spec.accelerators[0].count",
                      FieldErrorType::TypeInvalid,
                      "expected integer, got string (remove the quotes)");
  expect_single_error(with(kBase, "clusterID: test", "clusterID: 42"), "spec.clusterID",
                      FieldErrorType::TypeInvalid, "expected string, got integer");
  expect_single_error(with(kBase, "count: 8", "count: 8.5"), "spec.accelerators[0].count",
                      FieldErrorType::TypeInvalid, "got number");
  expect_single_error(with(kBase, "  storage:\n    - class: ssd\n      capacity: 1Ti\n",
                           "  storage:\n    class: ssd\n"),
                      "spec.storage", FieldErrorType::TypeInvalid, "expected list, got object");
  expect_single_error(with(kBase, "cpu: \"64\"", "cpu: true"), "spec.compute.cpu",
                      FieldErrorType::TypeInvalid, "got boolean");
}

BOOST_AUTO_TEST_CASE(quantities_bad_negative_and_overflowing) {
  expect_single_error(with(kBase, "cpu: \"64\"", "cpu: 1.5 cores"), "spec.compute.cpu",
                      FieldErrorType::Invalid, "quantities must match the regular expression");
  expect_single_error(with(kBase, "memory: 256Gi", "memory: \"-1Gi\""), "spec.compute.memory",
                      FieldErrorType::Invalid, "must be greater than 0");
  expect_single_error(with(kBase, "capacity: 1Ti", "capacity: -1"), "spec.storage[0].capacity",
                      FieldErrorType::Invalid, "must be greater than or equal to 0");
  expect_single_error(with(kBase, "cpu: \"64\"", "cpu: 10E"), "spec.compute.cpu",
                      FieldErrorType::Invalid, "too large");
  expect_single_error(with(kBase, "memory: 256Gi", "memory: 100E"), "spec.compute.memory",
                      FieldErrorType::Invalid, "too large");
  // Kubernetes would cap this at 2^63-1 bytes; a profile must say what the cluster has.
  expect_single_error(with(kBase, "memory: 256Gi", "memory: 99999999999999999999999Ki"),
                      "spec.compute.memory", FieldErrorType::Invalid, "too large");
  expect_single_error(with(kBase, "capacity: 1Ti", "capacity: 9999999Ei"),
                      "spec.storage[0].capacity", FieldErrorType::Invalid, "too large");
  expect_single_error(with(kBase, "count: 8", "count: 99999999999999999999"),
                      "spec.accelerators[0].count", FieldErrorType::Invalid,
                      "out of range for a 64-bit integer");
  expect_single_error(with(kBase, "count: 8", "count: -8"), "spec.accelerators[0].count",
                      FieldErrorType::Invalid, "must be greater than or equal to 1");
}

BOOST_AUTO_TEST_CASE(unknown_fields_are_rejected_with_a_suggestion) {
  expect_single_error(with(kBase, "  compute:", "  computee:"), "spec.computee",
                      FieldErrorType::UnknownField, "did you mean \"compute\"");
  expect_single_error(
      with(kBase, "    - model: A10\n", "    - model: A10\n      topolgy: NVLink\n"),
      "spec.accelerators[0].topolgy", FieldErrorType::UnknownField, "did you mean \"topology\"");
  // A misspelt required field is both missing and unknown; both are said.
  const auto misspelt = decode(with(kBase, "memoryPerGPU", "memoryPerGpu"));
  BOOST_TEST(misspelt.errors.size() == 2u);
  BOOST_TEST(error_at(misspelt, "spec.accelerators[0].memoryPerGPU") != nullptr);
  const auto* unknown = error_at(misspelt, "spec.accelerators[0].memoryPerGpu");
  BOOST_TEST_REQUIRE(unknown != nullptr);
  BOOST_TEST(unknown->detail.find("did you mean \"memoryPerGPU\"") != std::string::npos);
  expect_single_error(kBase + "status: {}\n", "status", FieldErrorType::UnknownField,
                      "not a field of ClusterResourceProfile");
}

BOOST_AUTO_TEST_CASE(duplicate_keys_and_entries) {
  expect_single_error(with(kBase, "  clusterID: test\n", "  clusterID: test\n  clusterID: other\n"),
                      "spec.clusterID", FieldErrorType::Duplicate, "more than once");
  expect_single_error(kBase + "    - class: ssd\n      capacity: 2Ti\n", "spec.storage[1].class",
                      FieldErrorType::Duplicate, "\"ssd\"");
  expect_single_error(kBase + "  nodeCount: 1\n  nodeCount: 2\n", "spec.nodeCount",
                      FieldErrorType::Duplicate, "more than once");
}

BOOST_AUTO_TEST_CASE(required_fields) {
  expect_single_error(with(kBase, "  clusterID: test\n", ""), "spec.clusterID",
                      FieldErrorType::Required, "Required value");
  expect_single_error(with(kBase, "metadata:\n  name: test\n", ""), "metadata",
                      FieldErrorType::Required, "Required value");
  expect_single_error(with(kBase, "      memoryPerGPU: 24Gi\n", ""),
                      "spec.accelerators[0].memoryPerGPU", FieldErrorType::Required,
                      "Required value");
  expect_single_error(with(kBase, "  clusterID: test", "  clusterID: \"\""), "spec.clusterID",
                      FieldErrorType::Required, "Required value");
  expect_single_error(with(kBase, "  clusterID: test", "  clusterID:"), "spec.clusterID",
                      FieldErrorType::Required, "Required value");
}

BOOST_AUTO_TEST_CASE(enumerations_list_their_values) {
  expect_single_error(
      with(kBase, "    - model: A10\n", "    - model: A10\n      topology: NVlink\n"),
      "spec.accelerators[0].topology", FieldErrorType::NotSupported,
      "supported values: \"PCIe\", \"PCIe-Gen<N>\", \"NVLink\", \"NVLink-<N>\"");
  expect_single_error(with(kBase, "  clusterID: test\n", "  clusterID: test\n  machineType: vm\n"),
                      "spec.machineType", FieldErrorType::NotSupported, "\"VirtualMachine\"");
}

BOOST_AUTO_TEST_CASE(names_versions_and_network_values) {
  expect_single_error(with(kBase, "clusterID: test", "clusterID: Test_1"), "spec.clusterID",
                      FieldErrorType::Invalid, "RFC 1123 label");
  expect_single_error(
      with(kBase, "  clusterID: test\n", "  clusterID: test\n  kubernetesVersion: latest\n"),
      "spec.kubernetesVersion", FieldErrorType::Invalid, "v1.29.4");
  expect_single_error(kBase + "  network:\n    bandwidth: 10GB/s\n", "spec.network.bandwidth",
                      FieldErrorType::Invalid, "unknown bandwidth unit");
  expect_single_error(kBase + "  network:\n    latency: \">1ms\"\n", "spec.network.latency",
                      FieldErrorType::Invalid, "latency must be a number");
  expect_single_error(with(kWithGroups, "        memory: 4Gi\n",
                           "        memory: 4Gi\n      taints:\n        - key: spot\n"
                           "          effect: Sometimes\n"),
                      "spec.nodeGroups[1].taints[0].effect", FieldErrorType::NotSupported,
                      "NoSchedule");
}

BOOST_AUTO_TEST_CASE(errors_carry_source_lines) {
  const auto decoded = decode(with(kBase, "count: 8", "count: -8"));
  BOOST_TEST_REQUIRE(decoded.errors.size() == 1u);
  BOOST_TEST(decoded.errors[0].line == 12);  // "count:" is on line 12 of kBase
  const auto unknown = decode(with(kBase, "  compute:", "  computee:"));
  BOOST_TEST_REQUIRE(unknown.errors.size() == 1u);
  BOOST_TEST(unknown.errors[0].line == 7);
}

BOOST_AUTO_TEST_SUITE_END()

// Needs the seed in ../shared: a suite and ctest entry of its own, skipped alone.
BOOST_AUTO_TEST_SUITE(cluster_profile_shared_data)

// The shipped file is the seed's text, not a paraphrase of it: its YAML is the document's lines.
BOOST_AUTO_TEST_CASE(the_shipped_example_is_the_seeds_text,
                     *boost::unit_test::precondition(unisched::testing::SharedFileAvailable{
                         "seed"})) {
  std::string seed;
  for (const auto& entry :
       std::filesystem::directory_iterator(unisched::testing::shared_path("seed"))) {
    seed += unisched::testing::read_file(entry.path().string());
  }
  const size_t begin = seed.find("apiVersion: scheduling.cluster.io/v1");
  BOOST_TEST_REQUIRE(begin != std::string::npos, "the seed has no example profile");
  const size_t end = seed.find("\n\n", begin);
  const std::string seed_yaml = seed.substr(begin, end - begin + 1);
  const std::string shipped = unisched::testing::read_file(kSeedExample);
  BOOST_TEST(shipped.substr(shipped.find("apiVersion:")) == seed_yaml);
  BOOST_TEST(decode(seed_yaml).errors.empty());
}

BOOST_AUTO_TEST_SUITE_END()
