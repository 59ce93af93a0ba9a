// A cluster's update rate limit (cores/update_rate_limit): token buckets with a sticky refusal.
#include <boost/test/unit_test.hpp>

#include "cores/update_rate_limit.hpp"

using namespace unisched::actors;
using std::chrono::milliseconds;

namespace {

const UpdateRateLimit::Clock::time_point kStart =
    UpdateRateLimit::Clock::time_point{} + std::chrono::hours(1);

}  // namespace

BOOST_AUTO_TEST_SUITE(update_rate_limit)

BOOST_AUTO_TEST_CASE(no_limit_admits_everything) {
  UpdateRateLimit unlimited;
  for (int i = 0; i < 1000; ++i) {
    BOOST_TEST(!unlimited.admit(10'000, kStart).has_value());
  }
  BOOST_TEST(unlimited.refused() == 0u);
}

BOOST_AUTO_TEST_CASE(a_second_of_updates_passes_then_every_update_waits_for_its_share) {
  UpdateRateLimit limit({10, 0});
  for (int i = 0; i < 10; ++i) {
    BOOST_TEST(!limit.admit(1, kStart).has_value());
  }
  const auto wait = limit.admit(1, kStart);
  BOOST_TEST_REQUIRE(wait.has_value());
  BOOST_TEST(wait->count() == 100);  // one update's share of a second
  // Refused until then, even an update that would fit: they resume in order.
  BOOST_TEST(limit.admit(0, kStart + milliseconds(50)).value().count() == 50);
  BOOST_TEST(!limit.admit(1, kStart + milliseconds(100)).has_value());
  BOOST_TEST(limit.refused() == 2u);
}

BOOST_AUTO_TEST_CASE(node_changes_are_limited_and_a_large_update_passes_on_a_full_bucket) {
  UpdateRateLimit limit({0, 1000});
  BOOST_TEST(!limit.admit(5000, kStart).has_value());  // larger than a second's worth: full bucket
  const auto wait = limit.admit(500, kStart);
  BOOST_TEST_REQUIRE(wait.has_value());
  BOOST_TEST(wait->count() == 4500);  // the debt of 4,000 plus 500 for this one
  BOOST_TEST(!limit.admit(500, kStart + milliseconds(4500)).has_value());
}

BOOST_AUTO_TEST_SUITE_END()
