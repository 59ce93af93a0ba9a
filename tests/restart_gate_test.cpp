// RestartGate: the work a restarted hub holds back goes once every awaited cluster is in step
// (any one when none is named) or at the deadline, with what was accepted meanwhile behind it.
#include "runtime/restart_gate.hpp"

#include <boost/test/unit_test.hpp>
#include <chrono>
#include <set>
#include <string>
#include <vector>

using unisched::runtime::RestartGate;

namespace {

RestartGate::Work work(const std::vector<std::string>& ids) {
  RestartGate::Work out(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    out[i].id = ids[i];
  }
  return out;
}

std::vector<std::string> ids_of(const RestartGate::Work& work) {
  std::vector<std::string> out;
  for (const auto& each : work) {
    out.push_back(each.id);
  }
  return out;
}

const RestartGate::Clock::time_point kStart{std::chrono::hours(1)};
const RestartGate::Clock::time_point kDeadline = kStart + std::chrono::seconds(30);

}  // namespace

BOOST_AUTO_TEST_SUITE(restart_gate)

BOOST_AUTO_TEST_CASE(the_work_goes_once_the_clusters_are_back_or_at_the_deadline) {
  struct Case {
    const char* what;
    std::set<std::string> awaited;
    std::vector<std::string> synced;  // in turn
    RestartGate::Clock::time_point now;
    bool let_go;
  };
  const Case cases[] = {
      {"every awaited cluster back", {"a", "b"}, {"b", "c", "a"}, kStart, true},
      {"one still away", {"a", "b"}, {"a", "c"}, kStart, false},
      {"one away at the deadline", {"a", "b"}, {"a"}, kDeadline, true},
      {"none named: any one will do", {}, {"c"}, kStart, true},
      {"none named, none back", {}, {}, kStart, false},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.what) {
      RestartGate gate;
      gate.close(work({"r1~1", "r2~1"}), c.awaited, kDeadline);
      BOOST_TEST(gate.closed());
      gate.hold(work({"late"}));  // accepted meanwhile: behind them
      RestartGate::Work out;
      for (const std::string& cluster : c.synced) {
        for (auto& each : gate.cluster_synced(cluster)) {
          out.push_back(std::move(each));
        }
      }
      for (auto& each : gate.tick(c.now)) {
        out.push_back(std::move(each));
      }
      const std::vector<std::string> expected =
          c.let_go ? std::vector<std::string>{"r1~1", "r2~1", "late"} : std::vector<std::string>{};
      BOOST_TEST(ids_of(out) == expected);
      BOOST_TEST(gate.closed() == !c.let_go);
      // Once let go, it stays open and gives nothing more.
      if (c.let_go) {
        BOOST_TEST(gate.cluster_synced("a").empty());
        BOOST_TEST(gate.tick(kDeadline).empty());
        BOOST_TEST(gate.awaited().empty());
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(with_no_work_nothing_is_held) {
  RestartGate gate;
  gate.close({}, {"a"}, kDeadline);
  BOOST_TEST(!gate.closed());
  BOOST_TEST(gate.awaited().empty());
  BOOST_TEST(gate.tick(kDeadline).empty());
}

BOOST_AUTO_TEST_SUITE_END()
