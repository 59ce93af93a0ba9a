// SchedulingQuota documents: decoded strictly, written back in canonical form, and refused with
// the field path and reason when malformed.
#include <boost/test/unit_test.hpp>

#include "tests/manifest_helpers.hpp"

using namespace unisched;
using model::FieldErrorType;
using unisched::testing::decode;
using unisched::testing::expect_single_error;

namespace {

const std::string kQuota = R"(apiVersion: scheduling.cluster.io/v1
kind: SchedulingQuota
metadata:
  name: team-a
spec:
  queue: team-a
  cohort: research
  weight: 2
  hard:
    cpu: "256"
    memory: 1Ti
    nvidia.com/gpu: "64"
  borrowingLimit:
    nvidia.com/gpu: "16"
  lendingLimit:
    nvidia.com/gpu: "32"
  caps:
  - region: eu-west
    hard:
      nvidia.com/gpu: "16"
  - model: A100
    hard:
      nvidia.com/gpu: "48"
)";

/// kQuota with `from` replaced; limits left out unless the change is about them.
std::string with(const std::string& from, const std::string& replace) {
  std::string text = kQuota;
  if (from.find("Limit") == std::string::npos && replace.find("Limit") == std::string::npos &&
      from.find("- ") == std::string::npos) {
    text = text.substr(0, text.find("  borrowingLimit:"));
  }
  const size_t at = text.find(from);
  BOOST_TEST_REQUIRE(at != std::string::npos, from);
  return text.replace(at, from.size(), replace);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(scheduling_quota)

BOOST_AUTO_TEST_CASE(a_quota_decodes_and_prints_canonically) {
  const auto decoded = decode(kQuota);
  BOOST_TEST_REQUIRE(decoded.errors.empty(), unisched::testing::all_errors(decoded));
  const auto& quota = std::get<model::SchedulingQuota>(*decoded.manifest);
  BOOST_TEST(quota.spec.queue == "team-a");
  BOOST_TEST(quota.spec.cohort == "research");
  BOOST_TEST(quota.spec.weight == 2);
  BOOST_TEST(quota.spec.hard.at("nvidia.com/gpu").to_string() == "64");
  BOOST_TEST(quota.spec.hard.at("memory").to_string() == "1Ti");
  BOOST_TEST(quota.spec.lending_limit.at("nvidia.com/gpu").to_string() == "32");
  BOOST_TEST_REQUIRE(quota.spec.caps.size() == 2u);
  BOOST_TEST(quota.spec.caps[0].region == "eu-west");
  BOOST_TEST(quota.spec.caps[0].hard.at("nvidia.com/gpu").to_string() == "16");
  BOOST_TEST(quota.spec.caps[1].model == "A100");
  BOOST_TEST(model::kind_of(*decoded.manifest) == "SchedulingQuota");
  const std::string yaml = model::render_manifests({*decoded.manifest}, model::OutputFormat::Yaml);
  const auto again = decode(yaml);
  BOOST_TEST_REQUIRE(again.errors.empty(), yaml);
  BOOST_TEST(model::render_manifests({*again.manifest}, model::OutputFormat::Yaml) == yaml);
  // A kind of device stands for every device of the kind.
  const auto kinds = decode(with("nvidia.com/gpu: \"64\"", "GPU: \"64\""));
  BOOST_TEST_REQUIRE(kinds.errors.empty(), unisched::testing::all_errors(kinds));
  BOOST_TEST(std::get<model::SchedulingQuota>(*kinds.manifest).spec.hard.count("GPU") == 1u);
  // The weight defaults to 1.
  const auto plain = decode(with("  weight: 2\n", ""));
  BOOST_TEST(std::get<model::SchedulingQuota>(*plain.manifest).spec.weight == 1);
}

BOOST_AUTO_TEST_CASE(malformed_quotas_are_refused_with_the_field_and_reason) {
  expect_single_error(with("  queue: team-a\n", ""), "spec.queue", FieldErrorType::Required,
                      "Required value");
  expect_single_error(with("queue: team-a", "queue: Team_A"), "spec.queue", FieldErrorType::Invalid,
                      "RFC 1123");
  expect_single_error(with("weight: 2", "weight: 0"), "spec.weight", FieldErrorType::Invalid,
                      "greater than or equal to 1");
  expect_single_error(with("nvidia.com/gpu: \"64\"", "gpus: \"64\""), "spec.hard[gpus]",
                      FieldErrorType::Invalid, "extended resource name");
  expect_single_error(with("nvidia.com/gpu: \"64\"", "nvidia.com/gpu: \"-1\""),
                      "spec.hard[nvidia.com/gpu]", FieldErrorType::Invalid,
                      "greater than or equal to 0");
  expect_single_error(with("nvidia.com/gpu: \"64\"", "nvidia.com/gpu: lots"),
                      "spec.hard.nvidia.com/gpu", FieldErrorType::Invalid, "quantities");
  expect_single_error(with("  lendingLimit:\n    nvidia.com/gpu: \"32\"\n",
                           "  lendingLimit:\n    nvidia.com/gpu: \"65\"\n"),
                      "spec.lendingLimit[nvidia.com/gpu]", FieldErrorType::Invalid,
                      "more than spec.hard (64)");
  expect_single_error(with("  borrowingLimit:\n    nvidia.com/gpu: \"16\"\n",
                           "  borrowingLimit:\n    amd.com/gpu: \"16\"\n"),
                      "spec.borrowingLimit[amd.com/gpu]", FieldErrorType::Invalid,
                      "not a resource of spec.hard");
  expect_single_error(
      "apiVersion: scheduling.cluster.io/v1\nkind: SchedulingQuota\nmetadata:\n  name: solo\n"
      "spec:\n  queue: solo\n  hard:\n    nvidia.com/gpu: \"8\"\n  borrowingLimit:\n"
      "    nvidia.com/gpu: \"2\"\n",
      "spec.borrowingLimit", FieldErrorType::Forbidden, "member of a cohort");
  expect_single_error(with("- region: eu-west", "- hard: {cpu: \"1\"}\n    region: eu-west"),
                      "spec.caps[0].hard", FieldErrorType::Duplicate, "");
  expect_single_error(with("- region: eu-west\n    hard:", "- hard:"), "spec.caps[0]",
                      FieldErrorType::Required, "one of cluster, region, zone or model");
  expect_single_error(with("- model: A100", "- model: A100\n    rack: r1"), "spec.caps[1].rack",
                      FieldErrorType::UnknownField, "");
  expect_single_error(with("- model: A100", "- model: \"A 100\""), "spec.caps[1].model",
                      FieldErrorType::Invalid, "");
  expect_single_error(with("  hard:", "  hardest: 1\n  hard:"), "spec.hardest",
                      FieldErrorType::UnknownField, "not a field of spec");
}

BOOST_AUTO_TEST_SUITE_END()
