// ViewResync: when a ClusterActor's view needs its agent's whole state, one pull at a time,
// the updates held back meanwhile replayed in order, and lost updates told from ones in flight
// by two reports of the agent's position.
#include "cores/view_resync.hpp"

#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

using unisched::actors::ViewResync;
namespace model = unisched::model;

namespace {

model::ViewUpdate update(uint64_t epoch, uint64_t version) {
  model::ViewUpdate out;
  out.epoch = epoch;
  out.base_version = version - 1;
  out.version = version;
  return out;
}

/// The versions next_in_order() hands out from `view` on, each applied before the next.
std::vector<uint64_t> replayed(ViewResync& resync, model::StreamPosition view) {
  std::vector<uint64_t> versions;
  while (auto next = resync.next_in_order(view)) {
    versions.push_back(next->version);
    view = {next->epoch, next->version};
  }
  return versions;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(view_resync)

BOOST_AUTO_TEST_CASE(one_pull_at_a_time_and_a_failed_pull_is_needed_again) {
  const struct {
    const char* what;
    void (*before)(ViewResync&);
    bool pull_now;
    bool idle;
  } table[] = {
      {"nothing needed", [](ViewResync&) {}, false, true},
      {"needed", [](ViewResync& r) { r.need(); }, true, false},
      {"in flight",
       [](ViewResync& r) {
         r.need();
         r.start_pull();
       },
       false, false},
      {"in flight, needed again by a gap",
       [](ViewResync& r) {
         r.need();
         r.start_pull();
         r.need();
       },
       false, false},
      {"the pull failed",
       [](ViewResync& r) {
         r.need();
         r.start_pull();
         r.pull_failed();
       },
       true, false},
      {"a pushed snapshot met the need before the pull failed",
       [](ViewResync& r) {
         r.need();
         r.start_pull();
         r.snapshot_taken();
         r.pull_failed();
       },
       false, true},
      {"the snapshot was refused",
       [](ViewResync& r) {
         r.need();
         r.start_pull();
         r.snapshot_refused();
       },
       true, false},
      {"updates passed the snapshot",
       [](ViewResync& r) {
         r.need();
         r.start_pull();
         r.snapshot_passed();
       },
       false, true},
  };
  for (const auto& row : table) {
    ViewResync resync;
    row.before(resync);
    BOOST_TEST(resync.idle() == row.idle, row.what);
    BOOST_TEST(resync.start_pull() == row.pull_now, row.what);
  }
}

BOOST_AUTO_TEST_CASE(a_need_is_new_only_when_nothing_was_needed) {
  ViewResync resync;
  BOOST_TEST(resync.need());
  BOOST_TEST(!resync.need());
  resync.start_pull();
  BOOST_TEST(!resync.need());
  resync.snapshot_taken();
  BOOST_TEST(resync.need());
}

BOOST_AUTO_TEST_CASE(held_back_updates_are_replayed_in_order_and_passed_ones_dropped) {
  const struct {
    const char* what;
    std::vector<uint64_t> held;  // versions of epoch 5, in arrival order
    model::StreamPosition view;
    std::vector<uint64_t> replayed;
    size_t left;
  } table[] = {
      {"in order", {3, 4}, {5, 2}, {3, 4}, 0},
      {"out of order", {5, 3, 4}, {5, 2}, {3, 4, 5}, 0},
      {"one still missing", {3, 5}, {5, 2}, {3}, 1},
      {"passed by the snapshot", {3, 4, 5}, {5, 4}, {5}, 0},
      {"of an earlier run", {3, 4}, {6, 1}, {}, 0},
  };
  for (const auto& row : table) {
    ViewResync resync;
    for (uint64_t version : row.held) {
      resync.hold_back(update(5, version));
    }
    BOOST_TEST(replayed(resync, row.view) == row.replayed, row.what);
    BOOST_TEST(resync.held_back() == row.left, row.what);
  }
}

BOOST_AUTO_TEST_CASE(no_more_than_the_stash_length_is_held_back) {
  ViewResync resync;
  for (uint64_t version = 2; version < 2 + ViewResync::kStashLength + 10; ++version) {
    resync.hold_back(update(5, version));
  }
  BOOST_TEST(resync.held_back() == ViewResync::kStashLength);
}

BOOST_AUTO_TEST_CASE(a_version_still_lacking_at_the_next_report_means_lost_updates) {
  const model::StreamPosition view{5, 3};
  const struct {
    const char* what;
    std::vector<model::StreamPosition> reports;
    bool needed;  // after the last report
  } table[] = {
      {"once ahead: may be in flight", {{5, 4}}, false},
      {"twice ahead", {{5, 4}, {5, 4}}, true},
      {"ahead, then in step", {{5, 4}, {5, 3}, {5, 4}}, false},
      {"a later run, twice", {{6, 1}, {6, 1}}, true},
      {"a later run, then another", {{6, 1}, {7, 1}}, false},
      {"in step", {{5, 3}, {5, 3}}, false},
  };
  for (const auto& row : table) {
    ViewResync resync;
    bool needed = false;
    for (const model::StreamPosition& report : row.reports) {
      needed = resync.on_agent_position(view, report);
    }
    BOOST_TEST(needed == row.needed, row.what);
    BOOST_TEST(resync.idle() == !row.needed, row.what);
  }
  ViewResync busy;  // a need already under way is not a new one
  busy.need();
  busy.on_agent_position(view, {5, 4});
  BOOST_TEST(!busy.on_agent_position(view, {5, 4}));
}

BOOST_AUTO_TEST_SUITE_END()
