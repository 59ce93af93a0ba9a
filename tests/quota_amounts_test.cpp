// The quota module's one sum and one charge: what placements take together, and charging a take
// to budget set aside (the ledger's leases and a scheduler's copy of them count with these).
#include "cores/quota_amounts.hpp"

#include <boost/test/unit_test.hpp>

#include <limits>
#include <string>
#include <vector>

using unisched::actors::charge;
using unisched::actors::demand_of;
using unisched::actors::QuotaPlacement;
using unisched::actors::QuotaPlacements;
using unisched::actors::ResourceAmounts;

BOOST_AUTO_TEST_SUITE(quota_amounts)

BOOST_AUTO_TEST_CASE(demand_sums_every_placement_and_saturates_instead_of_wrapping) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  struct Case {
    const char* what;
    std::vector<ResourceAmounts> placements;
    ResourceAmounts demand;
  };
  const Case cases[] = {
      {"none", {}, {}},
      {"one", {{{"cpu", 500}}}, {{"cpu", 500}}},
      {"resources add up by name",
       {{{"cpu", 500}, {"GPU", 1000}}, {{"cpu", 250}, {"memory", 1024}}},
       {{"cpu", 750}, {"GPU", 1000}, {"memory", 1024}}},
      {"two of 7Ei memory hold at the top of 64 bits",
       {{{"memory", kMax - 5}}, {{"memory", kMax - 5}}},
       {{"memory", kMax}}},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.what) {
      QuotaPlacements placements;
      for (size_t i = 0; i < c.placements.size(); ++i) {
        placements["p/" + std::to_string(i)] = QuotaPlacement{c.placements[i], "", "", "", ""};
      }
      BOOST_TEST((demand_of(placements) == c.demand));
    }
  }
}

BOOST_AUTO_TEST_CASE(a_charge_is_all_or_nothing_over_the_resources_the_budget_holds) {
  struct Case {
    const char* what;
    ResourceAmounts left;
    ResourceAmounts demand;
    bool charged;
    ResourceAmounts after;
  };
  const Case cases[] = {
      {"covered", {{"cpu", 2000}, {"GPU", 0}}, {{"cpu", 1500}}, true, {{"cpu", 500}, {"GPU", 0}}},
      {"exactly what is left", {{"cpu", 2000}}, {{"cpu", 2000}}, true, {{"cpu", 0}}},
      {"one resource short: nothing charged",
       {{"cpu", 2000}, {"GPU", 1000}},
       {{"cpu", 1000}, {"GPU", 2000}},
       false,
       {{"cpu", 2000}, {"GPU", 1000}}},
      {"a 0 the quota limits refuses any of it", {{"GPU", 0}}, {{"GPU", 500}}, false, {{"GPU", 0}}},
      {"a resource it does not hold is not its to limit",
       {{"cpu", 2000}},
       {{"cpu", 1000}, {"memory", 1 << 30}},
       true,
       {{"cpu", 1000}}},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.what) {
      ResourceAmounts left = c.left;
      BOOST_TEST(charge(left, c.demand) == c.charged);
      BOOST_TEST((left == c.after));
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
