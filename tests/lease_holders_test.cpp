// LeaseHolders: the ledger's record of the leases it granted, each asked back once.
#include "cores/lease_holders.hpp"

#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

using unisched::actors::LeaseHolders;

BOOST_AUTO_TEST_SUITE(lease_holders)

BOOST_AUTO_TEST_CASE(leases_are_asked_back_once_and_forgotten_when_given_back) {
  LeaseHolders leases;
  const std::string first = leases.next_id();
  const std::string second = leases.next_id();
  BOOST_TEST(first == "lease#1");
  BOOST_TEST(second == "lease#2");
  leases.grant(first, "s1", "team-a");
  leases.grant(second, "s2", "team-b");
  BOOST_TEST(leases.holds("s1", "team-a"));
  BOOST_TEST(!leases.holds("s1", "team-b"));
  const auto in_a = [](const std::string& queue) { return queue == "team-a"; };
  const auto revoked = leases.revoke(in_a);
  BOOST_TEST_REQUIRE(revoked.size() == 1u);
  BOOST_TEST(revoked[0].holder == "s1");
  BOOST_TEST(revoked[0].lease_id == first);
  BOOST_TEST(leases.revoke(in_a).empty());   // asked once
  BOOST_TEST(leases.holds("s1", "team-a"));  // held until given back
  BOOST_TEST((leases.of_holder("s2") == std::vector<std::string>{second}));
  leases.forget({first, "not-a-lease"});
  BOOST_TEST(!leases.holds("s1", "team-a"));
  BOOST_TEST(leases.of_holder("s1").empty());
  BOOST_TEST(leases.revoke([](const std::string&) { return true; }).size() == 1u);  // s2's
}

BOOST_AUTO_TEST_SUITE_END()
