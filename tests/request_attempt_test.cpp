// model/request_attempt: an attempt's key reads back as it was made, a key that is not one reads
// as attempt 0 of a request of that name, and a placement names its attempt and its request.
#include "model/request_attempt.hpp"

#include <boost/test/unit_test.hpp>
#include <string>

using unisched::model::attempt_key;
using unisched::model::attempt_of_placement;
using unisched::model::parse_attempt_key;
using unisched::model::request_of_placement;

BOOST_AUTO_TEST_SUITE(request_attempt)

BOOST_AUTO_TEST_CASE(an_attempts_key_reads_back) {
  BOOST_TEST(attempt_key("train", 0) == "train");  // attempt 0: ids as before attempts
  BOOST_TEST(attempt_key("train", 3) == "train~3");
  for (const uint32_t attempt : {0u, 1u, 9u, 10u, 4294967295u}) {
    const auto read = parse_attempt_key(attempt_key("llm.pretrain-2", attempt));
    BOOST_TEST(read.request == "llm.pretrain-2");
    BOOST_TEST(read.attempt == attempt);
  }
}

BOOST_AUTO_TEST_CASE(a_key_that_is_no_attempts_reads_as_a_name) {
  for (const std::string key :
       {"a~", "~1", "a~0", "a~01", "a~x", "a~1x", "a~-1", "a~4294967296", "a~ 1", ""}) {
    const auto read = parse_attempt_key(key);
    BOOST_TEST(read.request == key);
    BOOST_TEST(read.attempt == 0u, key);
  }
}

BOOST_AUTO_TEST_CASE(a_placement_names_its_attempt_and_its_request) {
  struct Case {
    std::string placement;
    std::string attempt;
    std::string request;
  };
  const Case cases[] = {
      {"train/0", "train", "train"},
      {"train~2/0", "train~2", "train"},
      {"train~2/1-again/0", "train~2", "train"},
      {"train/1-again/0", "train", "train"},
      {"no-slash", "no-slash", "no-slash"},
  };
  for (const Case& c : cases) {
    BOOST_TEST(attempt_of_placement(c.placement) == c.attempt, c.placement);
    BOOST_TEST(request_of_placement(c.placement) == c.request, c.placement);
  }
}

BOOST_AUTO_TEST_SUITE_END()
