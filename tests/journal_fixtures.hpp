// Journals as a hub would have written them, for the journal tests.
#pragma once

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "messages/unisched.pb.h"
#include "runtime/journal.hpp"

namespace unisched::testing {

/// A journal at `path` of `count` placed requests, "request-0" onwards.
inline void write_request_journal(const std::string& path, int count) {
  std::vector<std::string> records;
  for (int i = 0; i < count; ++i) {
    v1::RequestStatus status;
    status.set_request_id("request-" + std::to_string(i));
    status.set_phase(v1::RequestStatus::PLACED);
    records.push_back(status.SerializeAsString());
  }
  BOOST_TEST_REQUIRE(runtime::rewrite_journal(path, records).ok());
}

}  // namespace unisched::testing
