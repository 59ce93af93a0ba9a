#include "model/manifest.hpp"

#include <boost/test/unit_test.hpp>

#include "tests/manifest_helpers.hpp"

using namespace unisched::model;
using unisched::testing::decode;
using unisched::testing::expect_single_error;

namespace {

const std::string kRequest =
    "apiVersion: scheduling.cluster.io/v1\nkind: SchedulingRequest\nmetadata:\n  name: r\n"
    "spec:\n  resources:\n    cpu: 0.5\n    memory: 1073741824\n";

}  // namespace

BOOST_AUTO_TEST_SUITE(manifest)

BOOST_AUTO_TEST_CASE(documents_split_at_markers_with_their_lines) {
  const std::string stream = "# lead\n---\na: 1\n--- \nb: 2\n...\nc: 3\n";
  const auto documents = split_yaml_documents(stream);
  BOOST_TEST_REQUIRE(documents.size() == 4u);
  BOOST_TEST(documents[0].text == "# lead\n");
  BOOST_TEST(documents[1].first_line == 2);
  BOOST_TEST(documents[1].text == "\na: 1\n");
  BOOST_TEST(documents[2].first_line == 4);
  BOOST_TEST(documents[3].first_line == 7);
  BOOST_TEST(documents[3].text == "c: 3\n");
  // "----" and "--- x" inside text: only a marker at column 0 followed by space or end counts.
  BOOST_TEST(split_yaml_documents("a: |\n  ---\n----: 1\n").size() == 1u);
}

BOOST_AUTO_TEST_CASE(comment_only_documents_are_empty) {
  BOOST_TEST(decode("# nothing here\n").empty);
  BOOST_TEST(decode("").empty);
}

BOOST_AUTO_TEST_CASE(malformed_yaml_is_reported_with_its_line) {
  const auto decoded = decode_manifest({"a: 1\nb: [unclosed\nc: 3\n", 10});
  BOOST_TEST_REQUIRE(decoded.errors.size() == 1u);
  BOOST_TEST((decoded.errors[0].type == FieldErrorType::Malformed));
  BOOST_TEST(decoded.errors[0].to_string().rfind("Malformed YAML: ", 0) == 0u,
             decoded.errors[0].to_string());
  BOOST_TEST(decoded.errors[0].line >= 11);
  BOOST_TEST(!decoded.manifest.has_value());
}

BOOST_AUTO_TEST_CASE(document_shape_apiversion_and_kind) {
  expect_single_error("- a\n- b\n", "", FieldErrorType::TypeInvalid, "must be an object, got list");
  expect_single_error("just text\n", "", FieldErrorType::TypeInvalid, "got string");
  expect_single_error(unisched::testing::with(kRequest, "scheduling.cluster.io/v1", "v1"),
                      "apiVersion", FieldErrorType::NotSupported, "\"scheduling.cluster.io/v1\"");
  expect_single_error(unisched::testing::with(kRequest, "kind: SchedulingRequest", "kind: Pod"),
                      "kind", FieldErrorType::NotSupported,
                      "\"ClusterResourceProfile\", \"SchedulingQuota\", \"SchedulingRequest\"");
  expect_single_error(unisched::testing::with(kRequest, "kind: SchedulingRequest\n", ""), "kind",
                      FieldErrorType::Required, "Required value");
  expect_single_error(
      unisched::testing::with(kRequest, "apiVersion: scheduling.cluster.io/v1\n", ""), "apiVersion",
      FieldErrorType::Required, "Required value");
}

BOOST_AUTO_TEST_CASE(name_and_kind_are_known_even_for_bad_documents) {
  const auto decoded = decode(unisched::testing::with(kRequest, "cpu: 0.5", "cpu: lots"));
  BOOST_TEST(decoded.kind == "SchedulingRequest");
  BOOST_TEST(decoded.name == "r");
}

BOOST_AUTO_TEST_CASE(json_input_is_accepted) {
  const auto decoded = decode(
      R"({"apiVersion": "scheduling.cluster.io/v1", "kind": "SchedulingRequest",
          "metadata": {"name": "j"}, "spec": {"resources": {"cpu": 2, "memory": "1Gi"}}})");
  BOOST_TEST(decoded.manifest.has_value(), unisched::testing::all_errors(decoded));
}

BOOST_AUTO_TEST_CASE(canonical_yaml_quotes_numbers_and_prints_kubernetes_quantities) {
  const auto decoded = decode(kRequest);
  BOOST_TEST_REQUIRE(decoded.manifest.has_value(), unisched::testing::all_errors(decoded));
  const std::string yaml = render_manifests({*decoded.manifest}, OutputFormat::Yaml);
  BOOST_TEST(yaml.find("cpu: 500m") != std::string::npos, yaml);
  BOOST_TEST(yaml.find("memory: \"1073741824\"") != std::string::npos, yaml);
  BOOST_TEST(yaml.find("replicas: 1") != std::string::npos, yaml);  // default filled in
  BOOST_TEST(yaml.find("gang: false") != std::string::npos, yaml);
  // The canonical form reads back to the same canonical form.
  const auto again = decode(yaml);
  BOOST_TEST_REQUIRE(again.manifest.has_value(), unisched::testing::all_errors(again));
  BOOST_TEST(render_manifests({*again.manifest}, OutputFormat::Yaml) == yaml);
}

BOOST_AUTO_TEST_CASE(canonical_json_is_one_object_or_a_list) {
  const auto decoded = decode(kRequest);
  BOOST_TEST_REQUIRE(decoded.manifest.has_value());
  const std::string one = render_manifests({*decoded.manifest}, OutputFormat::Json);
  BOOST_TEST(one.rfind("{\n    \"apiVersion\": \"scheduling.cluster.io/v1\"", 0) == 0u, one);
  BOOST_TEST(one.find("\"replicas\": 1,") != std::string::npos, one);
  const std::string two =
      render_manifests({*decoded.manifest, *decoded.manifest}, OutputFormat::Json);
  BOOST_TEST(two.find("\"kind\": \"List\"") != std::string::npos, two);
  // Reading the JSON back gives the same document.
  const auto again = decode(one);
  BOOST_TEST(again.manifest.has_value(), unisched::testing::all_errors(again));
}

BOOST_AUTO_TEST_SUITE_END()
