// QuotaHoldings: what a ledger's queues hold, placements and leases, summed per queue; a lease
// charged only when it covers the take.
#include "cores/quota_holdings.hpp"

#include <boost/test/unit_test.hpp>
#include <string>

using unisched::actors::QuotaHoldings;
using unisched::actors::ResourceAmounts;

namespace {

QuotaHoldings::Holding holding(const std::string& queue, ResourceAmounts amounts, bool lease) {
  QuotaHoldings::Holding out{queue, {}, lease};
  out.placement.amounts = std::move(amounts);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(quota_holdings)

BOOST_AUTO_TEST_CASE(a_queue_holds_the_sum_of_its_placements_and_leases) {
  QuotaHoldings holdings;
  holdings.hold("a/0", holding("team-a", {{"cpu", 1000}}, false));
  holdings.hold("lease-1", holding("team-a", {{"cpu", 4000}, {"GPU", 2000}}, true));
  holdings.hold("b/0", holding("team-b", {{"cpu", 500}}, false));
  BOOST_TEST(holdings.used("team-a", "cpu") == 5000);
  BOOST_TEST(holdings.used("team-a", "GPU") == 2000);
  BOOST_TEST(holdings.leased_by("team-a").at("cpu") == 4000);
  BOOST_TEST(holdings.used("team-c", "cpu") == 0);
  BOOST_TEST(holdings.used_by("team-c").empty());
  int visited = 0;
  holdings.visit_queue("team-a",
                       [&](const std::string&, const QuotaHoldings::Holding&) { ++visited; });
  BOOST_TEST(visited == 2);
  BOOST_TEST(holdings.drop("a/0"));
  BOOST_TEST(!holdings.drop("a/0"));  // given back once
  BOOST_TEST(holdings.used("team-a", "cpu") == 4000);
}

BOOST_AUTO_TEST_CASE(a_lease_is_charged_only_when_it_covers_the_take) {
  const struct {
    const char* what;
    ResourceAmounts take;
    bool charged;
    int64_t cpu_left;  // of the lease
  } table[] = {
      {"within", {{"cpu", 1500}}, true, 2500},
      {"all of it", {{"cpu", 4000}}, true, 0},
      {"more than it holds", {{"cpu", 4001}}, false, 4000},
      {"a resource it does not hold", {{"memory", 10}}, true, 4000},
  };
  for (const auto& row : table) {
    QuotaHoldings holdings;
    holdings.hold("lease-1", holding("team-a", {{"cpu", 4000}}, true));
    BOOST_TEST(holdings.charge_lease("lease-1", row.take) == row.charged, row.what);
    BOOST_TEST(holdings.find("lease-1")->placement.amounts.at("cpu") == row.cpu_left, row.what);
    BOOST_TEST(holdings.used("team-a", "cpu") == row.cpu_left, row.what);  // the rest moves out
  }
  QuotaHoldings holdings;
  holdings.hold("a/0", holding("team-a", {{"cpu", 4000}}, false));
  BOOST_TEST(!holdings.charge_lease("a/0", {{"cpu", 1}}));  // a placement is no lease
  BOOST_TEST(!holdings.charge_lease("none", {{"cpu", 1}}));
}

BOOST_AUTO_TEST_SUITE_END()
