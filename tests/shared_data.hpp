// Locates test data: ../shared data, whose path comes from UNISCHED_SHARED (ctest sets it to
// the folder beside the checkout; tests that need it are skipped with a message when it is
// absent), and the vectors copied from public projects into tests/data (always there).
#pragma once

#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace unisched::testing {

inline std::filesystem::path shared_path(const std::string& relative) {
  const char* root = std::getenv("UNISCHED_SHARED");
  return root == nullptr ? std::filesystem::path() : std::filesystem::path(root) / relative;
}

/// A file or folder of tests/data (tests/data/README.md says where each came from).
inline std::filesystem::path vendored_path(const std::string& relative) {
  return std::filesystem::path(UNISCHED_SOURCE_DIR) / "tests" / "data" / relative;
}

/// Boost.Test precondition: the test runs only when shared/`relative` exists.
struct SharedFileAvailable {
  std::string relative;
  boost::test_tools::assertion_result operator()(boost::unit_test::test_unit_id) const {
    const auto path = shared_path(relative);
    boost::test_tools::assertion_result result(!path.empty() && std::filesystem::exists(path));
    if (!result) {
      result.message() << "shared data '" << relative
                       << "' not found (set UNISCHED_SHARED to the shared/ folder)";
    }
    return result;
  }
};

}  // namespace unisched::testing
