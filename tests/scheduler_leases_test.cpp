// SchedulerLeases: a scheduler's copy of the budget the ledger set aside for it, charged without
// a round trip, and the queues whose last take had to wait; and what a placement takes of it.
#include "cores/scheduler_leases.hpp"

#include <boost/test/unit_test.hpp>

#include <string>

#include "cores/scheduler_core.hpp"
#include "tests/policy_fixtures.hpp"

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

BOOST_AUTO_TEST_CASE(a_placement_takes_cpu_memory_and_its_devices_by_kind_and_by_name) {
  struct Case {
    const char* what;
    std::string node;                   ///< where it is placed
    std::vector<int32_t> devices;       ///< of the node's two A100s
    std::vector<int32_t> device_milli;  ///< of each; empty: whole
    const char* device_resource;        ///< as the cluster names its devices
    const char* requested;              ///< the resource the request names
    ResourceAmounts amounts;
    const char* model;
  };
  const Case cases[] = {
      {"no devices", "n1", {}, {}, "", "", {{"cpu", 2000}, {"memory", 1 << 30}}, ""},
      {"two whole GPUs the request names",
       "n1",
       {0, 1},
       {},
       "",
       "nvidia.com/gpu",
       {{"cpu", 2000}, {"memory", 1 << 30}, {"GPU", 2000}, {"nvidia.com/gpu", 2000}},
       "A100"},
      {"half a GPU the cluster names",
       "n1",
       {1},
       {500},
       "nvidia.com/gpu",
       "",
       {{"cpu", 2000}, {"memory", 1 << 30}, {"GPU", 500}, {"nvidia.com/gpu", 500}},
       "A100"},
      {"a GPU nobody names counts under its kind alone",
       "n1",
       {0},
       {},
       "",
       "",
       {{"cpu", 2000}, {"memory", 1 << 30}, {"GPU", 1000}},
       "A100"},
      {"a node the view does not hold: cpu and memory only",
       "gone",
       {0},
       {},
       "",
       "",
       {{"cpu", 2000}, {"memory", 1 << 30}},
       ""},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.what) {
      unisched::model::NodeState node = unisched::testing::node("n1", 8000, 64, 2);
      for (auto& device : node.devices) {
        device.resource = std::string(c.device_resource);
      }
      unisched::actors::SchedulerViews::Cluster local;
      local.info = {"a", "r1", "r1-a", unisched::model::MachineType::VirtualMachine, true};
      BOOST_TEST_REQUIRE(!local.view.apply({{unisched::model::NodeChangeKind::Add, node}}));
      unisched::model::SchedulingRequestSpec spec;
      if (*c.requested != '\0') {
        spec.resources.accelerators.push_back({});
        spec.resources.accelerators.back().resource = c.requested;
      }
      unisched::policy::ReplicaPlacement placement;
      placement.cluster = "a";
      placement.node = c.node;
      placement.cpu_milli = 2000;
      placement.memory_bytes = 1 << 30;
      placement.devices = c.devices;
      placement.device_milli = c.device_milli;
      const auto taken = unisched::actors::quota_placement_of(local, placement, spec);
      BOOST_TEST((taken.amounts == c.amounts));
      BOOST_TEST(taken.model == c.model);
      BOOST_TEST(taken.cluster == "a");
      BOOST_TEST(taken.zone == "r1-a");
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
