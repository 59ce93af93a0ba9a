// Waiting in tests for something another thread or process does: bounded, polled, and failing
// the test with what was awaited. Nothing here includes CAF.
#pragma once

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>

namespace unisched::testing {

/// How many times longer than usual this build may take for anything a test waits on: 1, or
/// UNISCHED_TEST_WAIT_SCALE (ctest sets it from tests/CMakeLists.txt: 4 under ASan, 8 under
/// TSan, whose instrumented code runs several times slower). Only waits and the work a test paces
/// in real time are scaled; no outcome a test checks depends on it.
inline double wait_scale() {
  static const double scale = [] {
    const char* text = std::getenv("UNISCHED_TEST_WAIT_SCALE");
    const double parsed = text == nullptr ? 1.0 : std::atof(text);
    return parsed >= 1.0 ? parsed : 1.0;
  }();
  return scale;
}

/// `limit` stretched by wait_scale().
inline std::chrono::milliseconds scaled(std::chrono::milliseconds limit) {
  return std::chrono::milliseconds(
      static_cast<int64_t>(static_cast<double>(limit.count()) * wait_scale()));
}

/// Polls `condition` every 10 ms until it holds; fails the test after `limit` (scaled).
inline void eventually(const std::function<bool()>& condition, const std::string& what,
                       std::chrono::milliseconds limit = std::chrono::seconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + scaled(limit);
  while (!condition()) {
    const bool in_time = std::chrono::steady_clock::now() < deadline;
    BOOST_TEST_REQUIRE(in_time, "timed out waiting: " << what);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace unisched::testing
