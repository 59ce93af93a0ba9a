// ReconnectBackoff: the wait between attempts doubles after each failure up to its ceiling and
// starts again from the first wait after a success.
#include "runtime/reconnect_backoff.hpp"

#include <boost/test/unit_test.hpp>
#include <vector>

using std::chrono::milliseconds;
using unisched::runtime::ReconnectBackoff;

BOOST_AUTO_TEST_SUITE(reconnect_backoff)

BOOST_AUTO_TEST_CASE(doubles_up_to_the_ceiling_and_starts_again_after_a_success) {
  ReconnectBackoff backoff(milliseconds(200), milliseconds(1'000));
  std::vector<long> waits;
  for (int attempt = 0; attempt < 5; ++attempt) {
    waits.push_back(static_cast<long>(backoff.current().count()));
    backoff.failed();
  }
  BOOST_TEST(waits == (std::vector<long>{200, 400, 800, 1'000, 1'000}),
             boost::test_tools::per_element());
  backoff.succeeded();
  BOOST_TEST(backoff.current().count() == 200);
}

BOOST_AUTO_TEST_CASE(the_default_is_200_ms_doubling_to_5_s) {
  ReconnectBackoff backoff;
  BOOST_TEST(backoff.current().count() == 200);
  for (int attempt = 0; attempt < 10; ++attempt) {
    backoff.failed();
  }
  BOOST_TEST(backoff.current().count() == 5'000);
}

BOOST_AUTO_TEST_SUITE_END()
