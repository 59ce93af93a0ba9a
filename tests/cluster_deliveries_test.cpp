// ClusterDeliveries: what a ClusterActor sends its agent again, period by period, until the
// agent confirms it; commits answered once; given-up requests released while the cluster
// answers.
#include "cores/cluster_deliveries.hpp"

#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

using unisched::actors::ClusterDeliveries;
using unisched::actors::Commit;
namespace model = unisched::model;

namespace {

model::Reservation reservation(const std::string& id) {
  return model::Reservation{id, "n1", 1000, 1 << 20, {}, {}, {}, {}};
}

std::vector<std::string> ids(const std::vector<model::Reservation>& orders) {
  std::vector<std::string> out;
  for (const auto& order : orders) {
    out.push_back(order.id);
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cluster_deliveries)

BOOST_AUTO_TEST_CASE(an_order_is_sent_again_after_a_whole_period_until_confirmed) {
  ClusterDeliveries deliveries;
  const model::Reservation a = reservation("a/0");
  const model::Reservation b = reservation("b/0");
  BOOST_TEST(deliveries.on_period({&a}, true).orders.empty());  // sent this period
  BOOST_TEST(ids(deliveries.on_period({&a, &b}, true).orders) == std::vector<std::string>{"a/0"},
             boost::test_tools::per_element());
  BOOST_TEST(
      ids(deliveries.on_period({&a, &b}, true).orders) == (std::vector<std::string>{"a/0", "b/0"}),
      boost::test_tools::per_element());
  BOOST_TEST(deliveries.on_period({}, true).orders.empty());    // both confirmed: no longer held
  BOOST_TEST(deliveries.on_period({&a}, true).orders.empty());  // held anew: its age starts over
}

BOOST_AUTO_TEST_CASE(a_release_is_sent_again_until_confirmed_or_given_up) {
  const struct {
    int age;           // where it starts
    int first_resent;  // the first period that sends it again
    bool confirmed_at_3;
  } table[] = {
      {0, 2, false},  // released now: one period to be confirmed first
      {1, 1, false},  // an order that overtook its request's give-up: sent at once
      {0, 2, true},
  };
  for (const auto& row : table) {
    ClusterDeliveries deliveries;
    deliveries.releasing("r/0", row.age);
    int sent = 0;
    int first = 0;
    for (int period = 1; period <= 3 * ClusterDeliveries::kReleaseResends; ++period) {
      if (row.confirmed_at_3 && period == 3) {
        deliveries.confirm_ended({"r/0"}, {});
      }
      if (!deliveries.on_period({}, true).releases.empty()) {
        ++sent;
        first = first == 0 ? period : first;
      }
    }
    BOOST_TEST(first == row.first_resent, "age " << row.age);
    // Sent from its second period of age up to kReleaseResends, then given up.
    const int expected =
        row.confirmed_at_3 ? 3 - row.first_resent : ClusterDeliveries::kReleaseResends - 1;
    BOOST_TEST(sent == expected, "age " << row.age);
  }
}

BOOST_AUTO_TEST_CASE(a_given_up_request_is_released_for_so_many_healthy_periods) {
  ClusterDeliveries deliveries;
  deliveries.give_up("gone");
  BOOST_TEST(deliveries.given_up("gone"));
  BOOST_TEST(!deliveries.given_up("kept"));
  int sent = 0;
  for (int period = 0; period < 10; ++period) {  // unhealthy: the agent does not answer
    sent += static_cast<int>(deliveries.on_period({}, false).released_requests.size());
  }
  BOOST_TEST(sent == 10);
  sent = 0;
  for (int period = 0; period < 3 * ClusterDeliveries::kReleaseResends; ++period) {
    sent += static_cast<int>(deliveries.on_period({}, true).released_requests.size());
  }
  BOOST_TEST(sent == ClusterDeliveries::kReleaseResends);
  BOOST_TEST(deliveries.given_up("gone"));  // its commits stay refused
}

BOOST_AUTO_TEST_CASE(a_placement_of_a_given_up_request_found_running_is_released_next_period) {
  ClusterDeliveries deliveries;
  deliveries.give_up("gone");
  deliveries.on_period({}, true);  // the request's own release went out
  deliveries.note_running({"gone/0", "kept/0"});
  BOOST_TEST(deliveries.on_period({}, true).releases == std::vector<std::string>{"gone/0"},
             boost::test_tools::per_element());
  deliveries.confirm_ended({"gone/0"}, {});
  BOOST_TEST(deliveries.on_period({}, true).releases.empty());
}

BOOST_AUTO_TEST_CASE(a_commit_is_known_again_only_when_all_its_placements_were_committed) {
  ClusterDeliveries deliveries;
  Commit first;
  first.reservations = {reservation("w/0"), reservation("w/1")};
  BOOST_TEST(!deliveries.committed_before(first));
  deliveries.note_committed(first);
  BOOST_TEST(deliveries.committed_before(first));
  Commit wider = first;
  wider.reservations.push_back(reservation("w/2"));
  BOOST_TEST(!deliveries.committed_before(wider));
  BOOST_TEST(!deliveries.committed_before(Commit{}));  // an empty commit is never a repeat
}

BOOST_AUTO_TEST_SUITE_END()
