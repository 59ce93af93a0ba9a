// A Slurm cluster behind a hub (`unisched serve`, `unisched agent --adapter slurm`), against
// real slurmctld and slurmd processes: its GPUs in `get nodes`, a request placed as a batch job,
// a placement Slurm does not start placed again on another node, and a job that ends by itself
// freeing its quota for a request that waits.
#include <boost/test/unit_test.hpp>

#include <set>
#include <string>

#include "tests/hub_process.hpp"
#include "tests/slurm_daemons.hpp"

using unisched::testing::ChildProcess;
using unisched::testing::eventually;
using unisched::testing::Hub;
using unisched::testing::Json;
using unisched::testing::SlurmAvailable;
using unisched::testing::SlurmDaemons;

namespace {

std::unique_ptr<ChildProcess> slurm_agent(const Hub& hub, const SlurmDaemons& slurm) {
  return std::make_unique<ChildProcess>(
      std::vector<std::string>{unisched::testing::kBinary, "agent", "--hub", hub.address,
                               "--adapter", "slurm", "--slurm-conf", slurm.conf, "--cluster", "hpc",
                               "--push-interval", "100ms", "--slurm-pending-limit", "3s",
                               "--slurm-workdir", slurm.dir.path()},
      hub.dir.path() + "/agent-slurm.log");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(slurm_hub)

BOOST_AUTO_TEST_CASE(a_slurm_cluster_joins_a_hub_beside_a_simulated_one,
                     *boost::unit_test::precondition(SlurmAvailable{})) {
  SlurmDaemons slurm({{"gpu1", 16, 65536, {{"a100", 2}}, ""}, {"cpu1", 8, 32768, {}, ""}});
  Hub hub;
  const auto sim = hub.agent("t4-vm-useast.yaml");
  const auto agent = slurm_agent(hub, slurm);
  for (const char* id : {"hpc", "t4-useast"}) {
    eventually([&] { return hub.has_health(id, true); }, std::string(id) + " healthy at the hub",
               std::chrono::seconds(30));
  }
  BOOST_TEST(!hub.cluster("hpc")->value("view_only", true));  // it carries out placements
  std::multiset<std::string> models;
  for (const auto& [name, node] : hub.node_view("hpc")) {
    models.insert(node.second.begin(), node.second.end());
  }
  BOOST_TEST((models == std::multiset<std::string>{"a100", "a100"}));
  // A GPU request goes to the Slurm node (the simulated cluster has T4s) and runs there.
  const std::string request = hub.dir.write(
      "train.yaml",
      "apiVersion: scheduling.cluster.io/v1\nkind: SchedulingRequest\nmetadata:\n  name: train\n"
      "spec:\n  resources:\n    cpu: \"2\"\n    memory: 2Gi\n    accelerators:\n"
      "      - type: GPU\n        model: A100\n        count: 2\n");
  const auto [placed, decision] = hub.client("submit -f " + request + " --wait --timeout 30s");
  BOOST_TEST(placed == 0, decision);
  eventually(
      [&] {
        return slurm.run("squeue -h -o '%T|%N|%b'").second.find("RUNNING|gpu1|gres:gpu:a100:2") !=
               std::string::npos;
      },
      "the job running on gpu1 with two GPUs", std::chrono::seconds(20));
  BOOST_TEST(hub.process->stop() == 0);
}

BOOST_AUTO_TEST_CASE(a_placement_slurm_does_not_start_is_placed_again_on_another_node,
                     *boost::unit_test::precondition(SlurmAvailable{})) {
  SlurmDaemons slurm(
      {{"gpu1", 16, 65536, {{"a100", 2}}, ""}, {"gpu2", 16, 65536, {{"a100", 2}}, ""}});
  // gpu1 already runs some of the cluster's own work, so binpack prefers it; but it is reserved
  // for maintenance, which the view does not show: a job sent there pends.
  const auto [busy, job] = slurm.run(
      "sbatch --parsable --nodelist=gpu1 --cpus-per-task=4 -o /dev/null --wrap 'sleep 120'");
  BOOST_TEST_REQUIRE(busy == 0, job);
  const auto [reserved, why] = slurm.run(
      "scontrol create reservation ReservationName=maint Nodes=gpu1 StartTime=now Duration=10 "
      "Users=root Flags=maint,ignore_jobs");
  BOOST_TEST_REQUIRE(reserved == 0, why);
  Hub hub(0, {"--policy", "binpack"});
  const auto agent = slurm_agent(hub, slurm);
  eventually([&] { return hub.has_health("hpc", true); }, "hpc healthy at the hub",
             std::chrono::seconds(30));
  const std::string request = hub.dir.write(
      "train.yaml",
      "apiVersion: scheduling.cluster.io/v1\nkind: SchedulingRequest\nmetadata:\n  name: train\n"
      "spec:\n  resources:\n    cpu: \"1\"\n    memory: 1Gi\n    accelerators:\n"
      "      - type: GPU\n        model: A100\n        count: 1\n");
  const auto [submitted, accepted] = hub.client("submit -f " + request);
  BOOST_TEST_REQUIRE(submitted == 0, accepted);
  // Pending past the agent's limit, it is refused and placed again, not on gpu1.
  eventually([&] { return hub.decided_nodes("train") == std::multiset<std::string>{"gpu2"}; },
             "placed again on gpu2", std::chrono::seconds(40));
  const Json decisions = hub.get("decisions");
  BOOST_TEST(decisions.dump().find("still pending after 3 s") != std::string::npos,
             decisions.dump());
  eventually(
      [&] {
        return slurm.run("squeue -h -n unisched -o '%T|%N'").second.find("RUNNING|gpu2") !=
               std::string::npos;
      },
      "the placement's job running on gpu2", std::chrono::seconds(20));
  BOOST_TEST(hub.process->stop() == 0);
}

BOOST_AUTO_TEST_CASE(direct_jobs_show_and_drained_nodes_take_nothing_through_the_hub,
                     *boost::unit_test::precondition(SlurmAvailable{})) {
  SlurmDaemons slurm(
      {{"gpu1", 16, 65536, {{"a100", 2}}, ""}, {"gpu2", 16, 65536, {{"a100", 2}}, ""}});
  Hub hub;
  const auto agent = slurm_agent(hub, slurm);
  eventually([&] { return hub.has_health("hpc", true); }, "hpc healthy at the hub",
             std::chrono::seconds(30));
  // Work submitted to Slurm directly, not through unisched, is what the hub sees taken.
  const auto [submitted, job] = slurm.run(
      "sbatch --parsable --nodelist=gpu2 --cpus-per-task=6 --mem=4G -o /dev/null --wrap 'sleep "
      "120'");
  BOOST_TEST_REQUIRE(submitted == 0, job);
  eventually([&] { return hub.node_view("hpc")["gpu2"].first == 6000; },
             "the direct job in the hub's view", std::chrono::seconds(10));
  // A drained node takes no placement: with gpu1 drained and gpu2's GPUs asked for in full
  // by another request first, a third finds nowhere to go.
  const auto drained = slurm.run("scontrol update nodename=gpu1 state=drain reason=maintenance");
  BOOST_TEST_REQUIRE(drained.first == 0, drained.second);
  const std::string request = hub.dir.write(
      "pair.yaml",
      "apiVersion: scheduling.cluster.io/v1\nkind: SchedulingRequest\nmetadata:\n  name: pair\n"
      "spec:\n  replicas: 2\n  resources:\n    cpu: \"1\"\n    memory: 1Gi\n"
      "    accelerators:\n      - type: GPU\n        model: A100\n        count: 2\n");
  eventually(
      [&] {
        const Json views = hub.get("nodes --cluster hpc");
        return views.dump().find("MIXED-DRAIN") != std::string::npos ||
               views.dump().find("IDLE-DRAIN") != std::string::npos;
      },
      "gpu1 drained in the hub's view", std::chrono::seconds(10));
  const auto [placed, decision] = hub.client("submit -f " + request + " --wait --timeout 30s");
  BOOST_TEST(placed != 0, decision);  // not placed in full: one replica found no node
  BOOST_TEST((hub.decided_nodes("pair") == std::multiset<std::string>{"gpu2"}),
             hub.get("decisions").dump() << hub.get("nodes --cluster hpc").dump());
  slurm.run("scancel --full " + job.substr(0, job.find_first_of("\n;")));
  BOOST_TEST(hub.process->stop() == 0);
}

BOOST_AUTO_TEST_CASE(a_job_that_ends_frees_its_quota_for_the_request_that_waits,
                     *boost::unit_test::precondition(SlurmAvailable{})) {
  SlurmDaemons slurm(
      {{"gpu1", 16, 65536, {{"a100", 2}}, ""}, {"gpu2", 16, 65536, {{"a100", 2}}, ""}});
  Hub hub;
  const auto agent = slurm_agent(hub, slurm);
  eventually([&] { return hub.has_health("hpc", true); }, "hpc healthy at the hub",
             std::chrono::seconds(30));
  const std::string quota = hub.dir.write(
      "quota.yaml",
      "apiVersion: scheduling.cluster.io/v1\nkind: SchedulingQuota\nmetadata:\n  name: lab\n"
      "spec:\n  queue: lab\n  hard:\n    GPU: \"2\"\n");
  BOOST_TEST_REQUIRE(hub.client("apply -f " + quota).first == 0);
  // Two requests of the budget's whole size: the first runs a short job, the second waits.
  const auto request = [&](const std::string& name, const std::string& seconds) {
    return "apiVersion: scheduling.cluster.io/v1\nkind: SchedulingRequest\nmetadata:\n  name: " +
           name +
           "\nspec:\n  queue: lab\n  resources:\n    cpu: \"1\"\n    memory: 1Gi\n"
           "    accelerators:\n      - type: GPU\n        model: A100\n        count: 2\n"
           "  template:\n    spec:\n      containers:\n        - name: w\n          image: x\n"
           "          command: [sleep, \"" +
           seconds + "\"]\n";
  };
  const auto [placed, decision] = hub.client(
      "submit -f " + hub.dir.write("short.yaml", request("short", "3")) + " --wait --timeout 30s");
  BOOST_TEST_REQUIRE(placed == 0, decision);
  BOOST_TEST(hub.client("submit -f " + hub.dir.write("next.yaml", request("next", "300"))).first ==
             0);
  const auto phase = [&](const std::string& id) {
    for (const auto& entry : hub.get("requests").value("requests", Json::array())) {
      if (entry.value("request_id", "") == id) {
        return entry.value("phase", "");
      }
    }
    return std::string();
  };
  eventually([&] { return phase("next") == "QUEUED"; }, "next waiting for quota",
             std::chrono::seconds(20));
  // The job ends by itself; the agent reports it, and its budget goes to the waiting request.
  eventually([&] { return phase("short") == "FINISHED"; }, "short finished at the hub",
             std::chrono::seconds(30));
  eventually([&] { return phase("next") == "PLACED"; }, "next placed once short ended",
             std::chrono::seconds(30));
  eventually(
      [&] {
        return slurm.run("squeue -h -n unisched -o '%T'").second.find("RUNNING") !=
               std::string::npos;
      },
      "next running as a job", std::chrono::seconds(20));
  BOOST_TEST(hub.process->stop() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
