// Waiting in tests for something another thread or process does: bounded, polled, and failing
// the test with what was awaited. Nothing here includes CAF.
#pragma once

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <functional>
#include <string>
#include <thread>

namespace unisched::testing {

/// Polls `condition` every 10 ms until it holds; fails the test after `limit`.
inline void eventually(const std::function<bool()>& condition, const std::string& what,
                       std::chrono::milliseconds limit = std::chrono::seconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!condition()) {
    const bool in_time = std::chrono::steady_clock::now() < deadline;
    BOOST_TEST_REQUIRE(in_time, "timed out waiting: " << what);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace unisched::testing
