// Helpers for tests that decode manifests from literal YAML.
#pragma once

#include <boost/test/unit_test.hpp>
#include <string>

#include "model/manifest.hpp"

namespace unisched::testing {

inline model::DecodedManifest decode(const std::string& yaml) {
  return model::decode_manifest(model::DocumentText{yaml, 1});
}

/// The error reported for `path`, or nullptr.
inline const model::FieldError* error_at(const model::DecodedManifest& decoded,
                                         const std::string& path) {
  for (const auto& error : decoded.errors) {
    if (error.path == path) {
      return &error;
    }
  }
  return nullptr;
}

inline std::string all_errors(const model::DecodedManifest& decoded) {
  std::string text;
  for (const auto& error : decoded.errors) {
    text += "\n  line " + std::to_string(error.line) + ": " + error.to_string();
  }
  return text;
}

/// Requires exactly one error, at `path`, of `type`, whose text contains `needle`.
inline void expect_single_error(const std::string& yaml, const std::string& path,
                                model::FieldErrorType type, const std::string& needle) {
  const auto decoded = decode(yaml);
  BOOST_TEST_REQUIRE(decoded.errors.size() == 1u,
                     "expected one error at " << path << ", got:" << all_errors(decoded));
  const auto& error = decoded.errors.front();
  BOOST_TEST(error.path == path);
  BOOST_TEST(static_cast<int>(error.type) == static_cast<int>(type), error.to_string());
  BOOST_TEST(error.to_string().find(needle) != std::string::npos,
             "'" << error.to_string() << "' should contain '" << needle << "'");
  BOOST_TEST(!decoded.manifest.has_value());
}

}  // namespace unisched::testing

namespace unisched::testing {

/// `text` with its single occurrence of `from` replaced by `to` (fails the test if absent).
inline std::string with(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  BOOST_TEST_REQUIRE(at != std::string::npos, "fixture lacks '" << from << "'");
  return text.replace(at, from.size(), to);
}

}  // namespace unisched::testing
