// ReservationHoldings: the reservations a ClusterActor holds on top of its agent's truth, what
// the agent's reports settle, and a failed step put back as it was.
#include "cores/reservation_holdings.hpp"

#include <boost/test/unit_test.hpp>
#include <set>
#include <string>
#include <vector>

using unisched::actors::ReservationHoldings;
namespace model = unisched::model;

namespace {

ReservationHoldings three_held() {
  ReservationHoldings holdings;
  holdings.add(model::Reservation{"a/0", "n1", 100, 0, {}, {}, {}, {}});
  holdings.add(model::Reservation{"a/1", "n1", 100, 0, {}, {}, {}, {}});
  holdings.add(model::Reservation{"b/0", "n2", 100, 0, {}, {}, {}, {}});
  return holdings;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(reservation_holdings)

BOOST_AUTO_TEST_CASE(what_the_agent_settles_is_dropped_and_its_nodes_touched) {
  const struct {
    const char* what;
    std::vector<std::string> applied;
    std::vector<std::pair<std::string, std::string>> refused;
    std::vector<std::string> finished;
    size_t left;
    std::set<std::string> touched;
  } table[] = {
      {"carried out", {"a/0"}, {}, {}, 2, {"n1"}},
      {"refused", {}, {{"b/0", "no room"}}, {}, 2, {"n2"}},
      {"ended, its start never reported", {}, {}, {"a/1"}, 2, {"n1"}},
      {"all", {"a/0"}, {{"b/0", "no room"}}, {"a/1"}, 0, {"n1", "n2"}},
      {"not held here", {"c/0"}, {}, {"c/1"}, 3, {}},
  };
  for (const auto& row : table) {
    ReservationHoldings holdings = three_held();
    std::set<std::string> touched;
    holdings.settle(row.applied, row.refused, row.finished, touched);
    BOOST_TEST(holdings.size() == row.left, row.what);
    BOOST_TEST(touched == row.touched, row.what);
  }
}

BOOST_AUTO_TEST_CASE(a_failed_step_is_put_back_as_it_was) {
  ReservationHoldings holdings = three_held();
  ReservationHoldings::Undo undo;
  std::set<std::string> touched;
  holdings.settle({"a/0"}, {}, {"b/0"}, touched, &undo);
  BOOST_TEST(holdings.erase_on("n1", &undo) == std::vector<std::string>{"a/1"},
             boost::test_tools::per_element());
  BOOST_TEST(holdings.empty());
  holdings.restore(std::move(undo));
  BOOST_TEST(holdings.size() == 3u);
  BOOST_TEST(holdings.holds_on("n1"));
  BOOST_TEST(holdings.contains("b/0"));
}

BOOST_AUTO_TEST_SUITE_END()
