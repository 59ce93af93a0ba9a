#include "model/version_gate.hpp"

#include <boost/test/unit_test.hpp>

using namespace unisched::model;

BOOST_AUTO_TEST_SUITE(version_gate)

BOOST_AUTO_TEST_CASE(verdicts) {
  struct Case {
    StreamPosition held;
    uint64_t epoch, base, version;
    UpdateVerdict verdict;
  };
  const Case cases[] = {
      {{0, 0}, 7, 0, 1, UpdateVerdict::Apply},      // a fresh agent's first update
      {{0, 0}, 7, 3, 4, UpdateVerdict::Gap},        // joined mid-stream: needs everything
      {{7, 4}, 7, 4, 5, UpdateVerdict::Apply},      // next in order
      {{7, 4}, 7, 3, 4, UpdateVerdict::Duplicate},  // the same again
      {{7, 4}, 7, 0, 1, UpdateVerdict::Duplicate},  // older
      {{7, 4}, 7, 5, 6, UpdateVerdict::Gap},        // 5 is missing
      {{7, 4}, 8, 0, 1, UpdateVerdict::Gap},        // the agent restarted
      {{7, 4}, 6, 9, 10, UpdateVerdict::Stale},     // sent late by an earlier run
      {{7, 4}, 6, 0, 1, UpdateVerdict::Stale},
      {{7, 4}, 7, 4, 6, UpdateVerdict::Malformed},  // skips a number
      {{7, 4}, 0, 4, 5, UpdateVerdict::Malformed},  // epoch 0 is no epoch
      {{7, 4}, 7, 5, 5, UpdateVerdict::Malformed},
  };
  for (const Case& c : cases) {
    BOOST_TEST((judge_update(c.held, c.epoch, c.base, c.version) == c.verdict),
               "held " << c.held.epoch << "/" << c.held.version << ", update " << c.epoch << ": "
                       << c.base << "->" << c.version);
  }
}

BOOST_AUTO_TEST_CASE(a_copy_follows_its_views_revisions_by_the_same_rule) {
  BOOST_TEST((judge_revision(4, 4, 5) == UpdateVerdict::Apply));
  BOOST_TEST((judge_revision(4, 3, 4) == UpdateVerdict::Duplicate));
  BOOST_TEST((judge_revision(4, 5, 6) == UpdateVerdict::Gap));
  BOOST_TEST((judge_revision(4, 4, 6) == UpdateVerdict::Malformed));
  BOOST_TEST((judge_revision(0, 0, 1) == UpdateVerdict::Apply));  // a copy's first change
}

BOOST_AUTO_TEST_CASE(snapshots) {
  BOOST_TEST(snapshot_is_current({7, 4}, 7, 4));
  BOOST_TEST(snapshot_is_current({7, 4}, 7, 9));
  BOOST_TEST(!snapshot_is_current({7, 4}, 7, 3));
  BOOST_TEST(snapshot_is_current({7, 4}, 8, 1));   // a new run replaces the old one
  BOOST_TEST(!snapshot_is_current({7, 4}, 6, 9));  // an earlier run's, however late its version
}

BOOST_AUTO_TEST_SUITE_END()
