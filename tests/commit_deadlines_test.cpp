#include "cores/commit_deadlines.hpp"

#include <boost/test/unit_test.hpp>

using std::chrono::milliseconds;
using unisched::actors::CommitDeadlines;

BOOST_AUTO_TEST_SUITE(commit_deadlines)

// A commit is overdue once its timeout has passed and it was not answered; an answer counts
// only while it is awaited, and the oldest awaited commit sets the next deadline.
BOOST_AUTO_TEST_CASE(unanswered_commits_fall_overdue_in_the_order_sent) {
  CommitDeadlines deadlines(milliseconds(100));
  const CommitDeadlines::Clock::time_point start{};
  const uint64_t first = deadlines.open(1, "a", start);
  const uint64_t answered = deadlines.open(2, "b", start + milliseconds(10));
  const uint64_t third = deadlines.open(3, "c", start + milliseconds(20));
  BOOST_TEST(deadlines.awaited() == 3u);
  BOOST_TEST(deadlines.take_overdue(start + milliseconds(99)).empty());
  BOOST_TEST(deadlines.close(answered));
  BOOST_TEST(!deadlines.close(answered));  // a repeated answer
  const auto overdue = deadlines.take_overdue(start + milliseconds(115));
  BOOST_TEST_REQUIRE(overdue.size() == 1u);
  BOOST_TEST(overdue[0].round == 1u);
  BOOST_TEST(overdue[0].cluster == "a");
  BOOST_TEST(!deadlines.close(first));  // its answer came too late: it counts no more
  BOOST_TEST((deadlines.next_deadline() == start + milliseconds(120)));
  BOOST_TEST(deadlines.close(third));
  BOOST_TEST(!deadlines.next_deadline().has_value());
  BOOST_TEST(deadlines.take_overdue(start + milliseconds(1000)).empty());
  BOOST_TEST(deadlines.awaited() == 0u);
}

// Several overdue at once come out together, oldest first, and each only once.
BOOST_AUTO_TEST_CASE(every_overdue_commit_is_taken_once) {
  CommitDeadlines deadlines(milliseconds(50));
  const CommitDeadlines::Clock::time_point start{};
  for (uint64_t round = 1; round <= 5; ++round) {
    deadlines.open(round, "cluster-" + std::to_string(round), start + milliseconds(round));
  }
  const auto overdue = deadlines.take_overdue(start + milliseconds(54));
  BOOST_TEST_REQUIRE(overdue.size() == 4u);
  for (size_t i = 0; i < overdue.size(); ++i) {
    BOOST_TEST(overdue[i].round == i + 1);
  }
  BOOST_TEST(deadlines.take_overdue(start + milliseconds(54)).empty());
  BOOST_TEST(deadlines.take_overdue(start + milliseconds(55)).size() == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
