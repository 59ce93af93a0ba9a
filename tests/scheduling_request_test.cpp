#include "model/scheduling_request.hpp"

#include <boost/test/unit_test.hpp>

#include "model/manifest.hpp"

#include "tests/manifest_helpers.hpp"

using namespace unisched::model;
using unisched::testing::all_errors;
using unisched::testing::decode;
using unisched::testing::error_at;
using unisched::testing::expect_single_error;
using unisched::testing::with;

namespace {

const std::string kBase = R"(apiVersion: scheduling.cluster.io/v1
kind: SchedulingRequest
metadata:
  name: train
spec:
  replicas: 2
  resources:
    cpu: "8"
    memory: 64Gi
    accelerators:
      - model: A100
        count: 4
        minMemoryPerGPU: 40Gi
        topology: NVLink
    hostPorts: [8080, 8081]
  placement:
    affinity:
      regions: [us-west]
    antiAffinity:
      zones: [us-west-1c]
    maxLatency: "<=1ms"
    storage:
      class: ssd
  distribution:
    mode: Spread
    gang: true
    weights:
      - cluster: a
        weight: 2
)";

}  // namespace

BOOST_AUTO_TEST_SUITE(scheduling_request)

BOOST_AUTO_TEST_CASE(full_request_decodes) {
  const auto decoded = decode(kBase);
  BOOST_TEST_REQUIRE(decoded.manifest.has_value(), unisched::testing::all_errors(decoded));
  const SchedulingRequestSpec& spec = std::get<SchedulingRequest>(*decoded.manifest).spec;
  BOOST_TEST(spec.replicas == 2);
  BOOST_TEST(spec.priority == 0);
  BOOST_TEST(*spec.resources.cpu.milli_value() == 8000);
  BOOST_TEST_REQUIRE(spec.resources.accelerators.size() == 1u);
  const AcceleratorRequest& gpu = spec.resources.accelerators[0];
  BOOST_TEST((gpu.type == AcceleratorType::GPU));
  BOOST_TEST(gpu.count == 4);
  BOOST_TEST(*gpu.min_memory_per_device->value() == int64_t{40} << 30);
  BOOST_TEST((*gpu.topology == Interconnect::NVLink));
  BOOST_TEST(spec.resources.host_ports == (std::vector<int64_t>{8080, 8081}));
  BOOST_TEST(spec.placement.affinity.regions == std::vector<std::string>{"us-west"});
  BOOST_TEST(spec.placement.max_latency->max_nanoseconds() == 1'000'000);
  BOOST_TEST(spec.placement.storage->storage_class == "ssd");
  BOOST_TEST(spec.distribution.gang);
  BOOST_TEST(spec.distribution.weights[0].weight == 2);
}

BOOST_AUTO_TEST_CASE(a_pod_template_is_kept_as_written_and_checked_where_it_matters) {
  const std::string with_template = kBase +
                                    "  template:\n"
                                    "    metadata:\n      labels: {app: train, tier: \"80\"}\n"
                                    "    spec:\n      containers:\n"
                                    "        - name: trainer\n          image: train:1.2\n"
                                    "          ports: [{containerPort: 8080}]\n"
                                    "          securityContext: {privileged: false}\n";
  const auto decoded = decode(with_template);
  BOOST_TEST_REQUIRE(decoded.manifest.has_value(), unisched::testing::all_errors(decoded));
  const std::string& pod = std::get<SchedulingRequest>(*decoded.manifest).spec.pod_template;
  // Core-schema types: a quoted "80" stays a string, 8080 is a number, false a boolean.
  BOOST_TEST(pod.find("\"tier\":\"80\"") != std::string::npos, pod);
  BOOST_TEST(pod.find("\"containerPort\":8080") != std::string::npos, pod);
  BOOST_TEST(pod.find("\"privileged\":false") != std::string::npos, pod);
  const std::string written = render_manifests({*decoded.manifest}, OutputFormat::Yaml);
  const auto again = decode(written);
  BOOST_TEST_REQUIRE(again.manifest.has_value(), written);
  BOOST_TEST(std::get<SchedulingRequest>(*again.manifest).spec.pod_template == pod);
  expect_single_error(kBase + "  template: run-it\n", "spec.template", FieldErrorType::Invalid,
                      "PodTemplateSpec");
  expect_single_error(kBase + "  template:\n    spec:\n      containers: []\n",
                      "spec.template.spec.containers", FieldErrorType::Invalid,
                      "at least one container");
  expect_single_error(kBase + "  template:\n    spec:\n      containers: [{image: x}]\n",
                      "spec.template.spec.containers[0].name", FieldErrorType::Invalid,
                      "needs a name");
  // Numbers JSON cannot carry as written are named where they stand (yaml-cpp's conversion
  // threw on them, found by fuzz_manifest).
  expect_single_error(kBase +
                          "  template:\n    spec:\n      containers:\n        - name: x\n"
                          "          ports: [{containerPort: 99999999999999999999}]\n",
                      "spec.template.spec.containers[0].ports[0].containerPort",
                      FieldErrorType::Invalid, "64-bit integer");
  expect_single_error(kBase +
                          "  template:\n    spec:\n      priority: 1e999\n"
                          "      containers: [{name: x}]\n",
                      "spec.template.spec.priority", FieldErrorType::Invalid, "finite number");
}

BOOST_AUTO_TEST_CASE(defaults_for_a_minimal_request) {
  const auto decoded = decode(
      "apiVersion: scheduling.cluster.io/v1\nkind: SchedulingRequest\nmetadata:\n  name: m\n"
      "spec:\n  resources:\n    cpu: 100m\n");
  BOOST_TEST_REQUIRE(decoded.manifest.has_value(), unisched::testing::all_errors(decoded));
  const SchedulingRequestSpec& spec = std::get<SchedulingRequest>(*decoded.manifest).spec;
  BOOST_TEST(spec.replicas == 1);
  BOOST_TEST((spec.distribution.mode == DistributionMode::Spread));
  BOOST_TEST(!spec.distribution.gang);
  BOOST_TEST(spec.resources.memory.is_zero());
}

BOOST_AUTO_TEST_CASE(a_request_names_its_queue) {
  const auto decoded = decode(with(kBase, "replicas: 2", "replicas: 2\n  queue: team-a"));
  BOOST_TEST_REQUIRE(decoded.errors.empty(), unisched::testing::all_errors(decoded));
  BOOST_TEST(std::get<unisched::model::SchedulingRequest>(*decoded.manifest).spec.queue ==
             "team-a");
  const std::string yaml =
      unisched::model::render_manifests({*decoded.manifest}, unisched::model::OutputFormat::Yaml);
  BOOST_TEST(yaml.find("queue: team-a") != std::string::npos, yaml);
  expect_single_error(with(kBase, "replicas: 2", "replicas: 2\n  queue: Team A"), "spec.queue",
                      FieldErrorType::Invalid, "RFC 1123");
}

BOOST_AUTO_TEST_CASE(resources_are_required) {
  expect_single_error(
      "apiVersion: scheduling.cluster.io/v1\nkind: SchedulingRequest\nmetadata:\n  name: m\n"
      "spec:\n  replicas: 1\n",
      "spec.resources", FieldErrorType::Required, "Required value");
}

BOOST_AUTO_TEST_CASE(ranges) {
  expect_single_error(with(kBase, "replicas: 2", "replicas: 0"), "spec.replicas",
                      FieldErrorType::Invalid, "greater than or equal to 1");
  expect_single_error(with(kBase, "replicas: 2", "replicas: 2\n  priority: 3000000000"),
                      "spec.priority", FieldErrorType::Invalid, "less than or equal to 2147483647");
  expect_single_error(with(kBase, "[8080, 8081]", "[8080, 70000]"), "spec.resources.hostPorts[1]",
                      FieldErrorType::Invalid, "65535");
  expect_single_error(with(kBase, "[8080, 8081]", "[8080, \"http\"]"),
                      "spec.resources.hostPorts[1]", FieldErrorType::TypeInvalid,
                      "expected integer");
  expect_single_error(with(kBase, "cpu: \"8\"", "cpu: \"-8\""), "spec.resources.cpu",
                      FieldErrorType::Invalid, "greater than or equal to 0");
  expect_single_error(with(kBase, "minMemoryPerGPU: 40Gi", "minMemoryPerGPU: \"0\""),
                      "spec.resources.accelerators[0].minMemoryPerGPU", FieldErrorType::Invalid,
                      "greater than 0");
}

BOOST_AUTO_TEST_CASE(amounts_beyond_64_bits_are_field_errors_not_clamped) {
  // Kubernetes caps binary-suffixed amounts at 2^63-1; unisched needs them exact, so a capped
  // amount is too large, shown as written.
  const auto decoded = decode(with(kBase, "memory: 64Gi", "memory: 99999999999999999999999Ki"));
  const FieldError* memory = error_at(decoded, "spec.resources.memory");
  BOOST_TEST_REQUIRE(memory != nullptr);
  BOOST_TEST(memory->to_string() ==
             "spec.resources.memory: Invalid value: \"99999999999999999999999Ki\": too large: "
             "must fit in a signed 64-bit count of bytes");
  expect_single_error(with(kBase, "memory: 64Gi", "memory: 9999999Ei"), "spec.resources.memory",
                      FieldErrorType::Invalid, "too large");
  expect_single_error(with(kBase, "memory: 64Gi", "memory: 8Ei"), "spec.resources.memory",
                      FieldErrorType::Invalid, "too large");
  expect_single_error(with(kBase, "minMemoryPerGPU: 40Gi", "minMemoryPerGPU: 16Ei"),
                      "spec.resources.accelerators[0].minMemoryPerGPU", FieldErrorType::Invalid,
                      "too large");
  expect_single_error(with(kBase, "class: ssd", "class: ssd\n      capacity: 9999999Ei"),
                      "spec.placement.storage.capacity", FieldErrorType::Invalid, "too large");
  expect_single_error(with(kBase, "cpu: \"8\"", "cpu: 9999999Ei"), "spec.resources.cpu",
                      FieldErrorType::Invalid, "too large");
  // The largest exact amount is still accepted.
  BOOST_TEST(decode(with(kBase, "memory: 64Gi", "memory: \"9223372036854775807\"")).errors.empty());
}

BOOST_AUTO_TEST_CASE(duplicates) {
  expect_single_error(with(kBase, "[8080, 8081]", "[8080, 8080]"), "spec.resources.hostPorts[1]",
                      FieldErrorType::Duplicate, "8080");
  expect_single_error(with(kBase, "        weight: 2\n",
                           "        weight: 2\n      - cluster: a\n        weight: 1\n"),
                      "spec.distribution.weights[1].cluster", FieldErrorType::Duplicate, "\"a\"");
}

BOOST_AUTO_TEST_CASE(contradictions_are_forbidden) {
  expect_single_error(with(kBase, "zones: [us-west-1c]", "regions: [us-west]"),
                      "spec.placement.antiAffinity.regions[0]", FieldErrorType::Forbidden,
                      "also required by spec.placement.affinity.regions");
  expect_single_error(with(kBase, "mode: Spread", "mode: Together"), "spec.distribution.weights",
                      FieldErrorType::Forbidden, "only to mode Spread");
}

BOOST_AUTO_TEST_CASE(wrong_values_and_unknown_fields) {
  expect_single_error(with(kBase, "mode: Spread", "mode: Gang"), "spec.distribution.mode",
                      FieldErrorType::NotSupported, "\"Spread\", \"Together\"");
  expect_single_error(with(kBase, "gang: true", "gang: \"yes\""), "spec.distribution.gang",
                      FieldErrorType::TypeInvalid, "expected boolean");
  expect_single_error(with(kBase, "maxLatency", "maxLatancy"), "spec.placement.maxLatancy",
                      FieldErrorType::UnknownField, "did you mean \"maxLatency\"");
  expect_single_error(with(kBase, "regions: [us-west]", "regions: [Us West]"),
                      "spec.placement.affinity.regions[0]", FieldErrorType::Invalid,
                      "a valid label");
}

// A user fixes a document once: decoding and semantic problems come together, and a field that
// did not decode does not also get a complaint about the stand-in value it holds.
BOOST_AUTO_TEST_CASE(every_problem_of_a_document_is_named_in_one_pass) {
  const auto decoded = decode(R"(apiVersion: scheduling.cluster.io/v1
kind: SchedulingRequest
metadata:
  name: Bad_Name
spec:
  replicas: -2
  priority: high
  resources:
    cpu: lots
    memory: 2GB
    gpus: 1
  distribution:
    mode: Sideways
)");
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"metadata.name", "a lowercase RFC 1123 subdomain"},
      {"spec.replicas", "greater than or equal to 1"},
      {"spec.priority", "expected integer"},
      {"spec.resources.cpu", "regular expression"},
      {"spec.resources.memory", "(did you mean \"2G\" or \"2Gi\"?)"},
      {"spec.resources.gpus", "(did you mean \"accelerators\"?)"},
      {"spec.distribution.mode", "supported values"}};
  BOOST_TEST(decoded.errors.size() == expected.size(), all_errors(decoded));
  for (const auto& [path, needle] : expected) {
    const FieldError* error = error_at(decoded, path);
    BOOST_TEST_REQUIRE(error != nullptr, path << " not reported:" << all_errors(decoded));
    BOOST_TEST(error->to_string().find(needle) != std::string::npos, error->to_string());
    BOOST_TEST(error->line > 0, path);
  }
  BOOST_TEST(!decoded.manifest.has_value());
}

BOOST_AUTO_TEST_CASE(a_share_of_one_device_and_a_set_of_models) {
  const std::string shared =
      with(kBase,
           "      - model: A100\n        count: 4\n        minMemoryPerGPU: 40Gi\n"
           "        topology: NVLink\n",
           "      - models: [V100M16, V100M32]\n        share: 460m\n");
  const auto decoded = decode(shared);
  BOOST_TEST_REQUIRE(decoded.manifest.has_value(), unisched::testing::all_errors(decoded));
  const AcceleratorRequest& gpu =
      std::get<SchedulingRequest>(*decoded.manifest).spec.resources.accelerators[0];
  BOOST_TEST(gpu.count == 1);  // a share is of one device
  BOOST_TEST(milli_per_device(gpu) == 460);
  BOOST_TEST((accepted_models(gpu) == std::vector<std::string>{"V100M16", "V100M32"}));
  BOOST_TEST(milli_per_device(std::get<SchedulingRequest>(*decode(kBase).manifest)
                                  .spec.resources.accelerators[0]) == 1000);
  BOOST_TEST(
      milli_per_device(std::get<SchedulingRequest>(*decode(with(shared, "460m", "0.25")).manifest)
                           .spec.resources.accelerators[0]) == 250);
}

BOOST_AUTO_TEST_CASE(impossible_shares_and_models_say_why) {
  const std::string base =
      with(kBase,
           "      - model: A100\n        count: 4\n        minMemoryPerGPU: 40Gi\n"
           "        topology: NVLink\n",
           "      - model: T4\n        share: 460m\n");
  for (const char* share : {"1", "1500m", "0", "0.0005"}) {
    expect_single_error(with(base, "460m", share), "spec.resources.accelerators[0].share",
                        FieldErrorType::Invalid, "must be above 0 and below 1");
  }
  expect_single_error(with(base, "share: 460m", "share: 460m\n        count: 2"),
                      "spec.resources.accelerators[0].count", FieldErrorType::Forbidden,
                      "a share is of one device: count must be 1");
  expect_single_error(
      with(base, "share: 460m", "share: 460m\n      - model: P100\n        count: 1"),
      "spec.resources.accelerators[0].share", FieldErrorType::Forbidden,
      "a share must be the request's only accelerator");
  expect_single_error(with(base, "model: T4", "model: T4\n        models: [P100]"),
                      "spec.resources.accelerators[0].models", FieldErrorType::Forbidden,
                      "give model or models, not both");
  expect_single_error(with(base, "model: T4", "models: [T4, \"not a model\"]"),
                      "spec.resources.accelerators[0].models[1]", FieldErrorType::Invalid,
                      "a valid label");
  expect_single_error(with(base, "share: 460m", "topology: NVLink"),
                      "spec.resources.accelerators[0].count", FieldErrorType::Required,
                      "Required value");
}

BOOST_AUTO_TEST_SUITE_END()
