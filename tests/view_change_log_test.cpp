// ViewChangeLog: what a subscriber that missed changes gets, and what the log forgets.
#include "cores/view_change_log.hpp"

#include <boost/test/unit_test.hpp>
#include <memory>

using unisched::actors::ViewChangeLog;
namespace model = unisched::model;

namespace {

/// The change from `revision - 1` to `revision`, of `nodes` node changes.
ViewChangeLog::Change change(uint64_t revision, size_t nodes = 1) {
  auto entry = std::make_shared<model::ViewRevision>();
  entry->base_revision = revision - 1;
  entry->revision = revision;
  entry->changes.resize(nodes);
  return entry;
}

std::vector<uint64_t> revisions(const std::vector<ViewChangeLog::Change>& changes) {
  std::vector<uint64_t> out;
  for (const auto& c : changes) {
    out.push_back(c->revision);
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(view_change_log)

BOOST_AUTO_TEST_CASE(a_subscriber_gets_what_it_missed_or_is_told_to_take_the_whole_view) {
  ViewChangeLog log;
  for (uint64_t r = 4; r <= 8; ++r) {
    log.record(change(r), 100);
  }
  const struct {
    uint64_t held;
    std::optional<std::vector<uint64_t>> missed;
  } table[] = {
      {8, std::vector<uint64_t>{}},         // up to date
      {7, std::vector<uint64_t>{8}},        // one behind
      {5, std::vector<uint64_t>{6, 7, 8}},  // found in the log
      {3, std::vector<uint64_t>{4, 5, 6, 7, 8}},
      {2, std::nullopt},  // before the oldest kept change: the whole view
  };
  for (const auto& row : table) {
    const auto missed = log.since(row.held, 8);
    BOOST_TEST(missed.has_value() == row.missed.has_value(), "held " << row.held);
    if (missed && row.missed) {
      BOOST_TEST(revisions(*missed) == *row.missed, boost::test_tools::per_element());
    }
  }
  BOOST_TEST(log.last_reaching(7, 8)->revision == 8u);
  BOOST_TEST(log.last_reaching(8, 8)->revision == 8u);
  BOOST_TEST(log.last_reaching(6, 8) == nullptr);  // two behind: more than the last change
  BOOST_TEST(log.last_reaching(7, 9) == nullptr);  // the view moved past the log
}

BOOST_AUTO_TEST_CASE(the_log_is_bounded_by_count_and_by_node_changes) {
  ViewChangeLog log;
  for (uint64_t r = 1; r <= ViewChangeLog::kLength + 10; ++r) {
    log.record(change(r), 100);
  }
  // Revisions 11 on are kept: a copy at 10 gets them all, one at 9 the whole view.
  BOOST_TEST(!log.since(9, ViewChangeLog::kLength + 10).has_value());
  BOOST_TEST(log.since(10, ViewChangeLog::kLength + 10)->size() == ViewChangeLog::kLength);
  // Node changes: at most kNodes for a small view, an eighth of a large view's nodes.
  ViewChangeLog nodes;
  nodes.record(change(1, 600), 100);
  nodes.record(change(2, 600), 100);  // 1200 > 1024: the oldest goes
  BOOST_TEST(!nodes.since(0, 2).has_value());
  BOOST_TEST(nodes.since(1, 2)->size() == 1u);
  ViewChangeLog large;
  large.record(change(1, 600), 80'000);
  large.record(change(2, 600), 80'000);  // within 10,000
  BOOST_TEST(large.since(0, 2)->size() == 2u);
}

BOOST_AUTO_TEST_CASE(a_change_larger_than_the_budget_empties_the_log) {
  ViewChangeLog log;
  log.record(change(1), 100);
  log.record(change(2, 5'000), 100);  // a listing
  BOOST_TEST(!log.since(0, 2).has_value());
  BOOST_TEST(!log.since(1, 2).has_value());
  log.record(change(3), 100);
  BOOST_TEST(log.since(2, 3)->size() == 1u);
  log.clear();
  BOOST_TEST(!log.since(2, 3).has_value());
}

BOOST_AUTO_TEST_SUITE_END()
