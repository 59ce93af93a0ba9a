// SchedulerLeases: a scheduler's copy of the budget the ledger set aside for it, charged without
// a round trip, and the queues whose last take had to wait.
#include "cores/scheduler_leases.hpp"

#include <boost/test/unit_test.hpp>

#include <string>

using unisched::actors::QuotaLease;
using unisched::actors::ResourceAmounts;
using unisched::actors::SchedulerLeases;

BOOST_AUTO_TEST_SUITE(scheduler_leases)

BOOST_AUTO_TEST_CASE(takes_are_charged_until_the_lease_is_spent) {
  struct Step {
    const char* what;
    const char* queue;
    int64_t cpu;
    const char* charged;  ///< the lease charged; empty: none
    const char* spent;    ///< the lease given back; empty: none
    int64_t left;         ///< of team's lease afterwards; -1: it holds none
  };
  const Step steps[] = {
      {"another queue has no lease", "other", 500, "", "", 3000},
      {"covered", "team", 1000, "lease#1", "", 2000},
      {"covered again", "team", 2000, "lease#1", "", 0},
      {"spent: given back, the ledger is asked", "team", 1, "", "lease#1", -1},
      {"no lease any more", "team", 1, "", "", -1},
  };
  SchedulerLeases leases;
  leases.grant("team", QuotaLease{"lease#1", {{"cpu", 3000}, {"GPU", 0}}});
  for (const Step& step : steps) {
    BOOST_TEST_CONTEXT(step.what) {
      const SchedulerLeases::Charge charge = leases.charge(step.queue, {{"cpu", step.cpu}});
      BOOST_TEST(charge.charged.value_or("") == step.charged);
      BOOST_TEST(charge.spent.value_or("") == step.spent);
      const QuotaLease* lease = leases.lease_of("team");
      BOOST_TEST((lease == nullptr ? -1 : lease->amounts.at("cpu")) == step.left);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_revoked_lease_is_given_back_once_and_a_grant_replaces_the_queues_lease) {
  SchedulerLeases leases;
  leases.grant("team", QuotaLease{"lease#1", {{"cpu", 1000}}});
  leases.grant("team", QuotaLease{"lease#2", {{"cpu", 4000}}});
  BOOST_TEST(leases.lease_of("team")->id == "lease#2");
  BOOST_TEST(!leases.revoke("lease#1"));  // replaced: nothing here to give back
  BOOST_TEST(leases.revoke("lease#2"));
  BOOST_TEST(!leases.revoke("lease#2"));
  BOOST_TEST(leases.lease_of("team") == nullptr);
  BOOST_TEST(!leases.charge("team", {{"cpu", 1}}).charged.has_value());
}

BOOST_AUTO_TEST_CASE(a_queue_is_tight_from_a_take_that_waited_until_one_is_taken) {
  SchedulerLeases leases;
  BOOST_TEST(!leases.tight("team"));
  leases.set_tight("team", true);
  BOOST_TEST(leases.tight("team"));
  BOOST_TEST(!leases.tight("other"));
  leases.set_tight("team", false);
  BOOST_TEST(!leases.tight("team"));
}

BOOST_AUTO_TEST_SUITE_END()
