#include "actors/countdown.hpp"

#include <boost/test/unit_test.hpp>

using unisched::actors::Countdown;

BOOST_AUTO_TEST_SUITE(countdown)

BOOST_AUTO_TEST_CASE(runs_once_when_the_last_reply_is_in_whatever_the_copy) {
  int runs = 0;
  const Countdown replies(3, [&] { ++runs; });
  const Countdown copy = replies;  // each reply's handler holds a copy
  replies();
  copy();
  BOOST_TEST(runs == 0);
  BOOST_TEST(copy.left() == 1u);
  copy();
  BOOST_TEST(runs == 1);
  replies();  // a reply past the count
  BOOST_TEST(runs == 1);
  BOOST_TEST(replies.left() == 0u);
}

BOOST_AUTO_TEST_CASE(with_nothing_to_wait_for_it_runs_at_once) {
  int runs = 0;
  const Countdown none(0, [&] { ++runs; });
  BOOST_TEST(runs == 1);
  none();
  BOOST_TEST(runs == 1);
}

BOOST_AUTO_TEST_SUITE_END()
