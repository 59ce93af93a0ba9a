// The deterministic simulation of the whole system (simulation/, `unisched simulate`): a run
// repeats exactly from its seed, the observer catches what it is there to catch, and each seed
// that found a defect runs clean now. CI runs 500 seeds through the CLI (tests/CMakeLists.txt).
#include <boost/test/unit_test.hpp>

#include "simulation/observer.hpp"
#include "simulation/simulation_run.hpp"

using namespace unisched;
using simulation::FaultSet;
using simulation::Observer;
using simulation::RunReport;
using simulation::RunSettings;

namespace {

model::NodeState one_gpu_node() {
  model::NodeState node;
  node.name = "n";
  node.allocatable_cpu_milli = 1000;
  node.allocatable_memory_bytes = int64_t{1} << 30;
  node.max_pods = 10;
  node.devices.resize(1);
  return node;
}

adapters::Placement placement(const std::string& id, int64_t cpu, std::vector<int32_t> ports,
                              std::vector<int32_t> devices = {}, int32_t milli = 1000) {
  return {id, "n", cpu, 1, std::move(devices), milli, std::move(ports), {}};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(simulation)

BOOST_AUTO_TEST_CASE(a_run_repeats_exactly_from_its_seed) {
  RunSettings settings;
  settings.seed = 7;
  const RunReport first = unisched::simulation::run_simulation(settings);
  const RunReport second = unisched::simulation::run_simulation(settings);
  BOOST_TEST(first.faults.total() > 0u);
  BOOST_TEST(first.accepted > 0u);
  BOOST_TEST(first.digest == second.digest);
  BOOST_TEST(first.deliveries == second.deliveries);
  BOOST_TEST(first.faults.by_kind == second.faults.by_kind);
  BOOST_TEST(first.violations == second.violations);
  settings.seed = 8;
  BOOST_TEST(unisched::simulation::run_simulation(settings).digest != first.digest);
}

BOOST_AUTO_TEST_CASE(the_observer_flags_over_committed_nodes_with_its_own_ledger) {
  Observer observer;
  observer.add_cluster("c", {one_gpu_node()});
  observer.on_apply("c", placement("a/0", 600, {8080}, {0}, 500),
                    adapters::PlacementOutcome::Applied);
  BOOST_TEST(observer.violations().empty());
  observer.on_apply("c", placement("b/0", 600, {}), adapters::PlacementOutcome::Applied);
  BOOST_TEST_REQUIRE(observer.violations().size() == 1u);
  BOOST_TEST(observer.violations().back().find("over-committed by placement b/0: cpu") !=
             std::string::npos);
  observer.on_gone("c", "b/0", true);  // the ledger frees what ended
  observer.on_apply("c", placement("c/0", 100, {8080}), adapters::PlacementOutcome::Applied);
  BOOST_TEST(observer.violations().back().find("host port 8080") != std::string::npos);
  observer.on_gone("c", "c/0", true);
  observer.on_apply("c", placement("d/0", 100, {}, {0}, 600), adapters::PlacementOutcome::Applied);
  BOOST_TEST(observer.violations().back().find("device 0") != std::string::npos);
  // A refusal for room is the cluster's own check working: counted, not a violation.
  const size_t before = observer.violations().size();
  observer.on_apply("c", placement("e/0", 900, {}), adapters::PlacementOutcome::DoesNotFit);
  BOOST_TEST(observer.violations().size() == before);
  BOOST_TEST(observer.refused_for_room() == 1u);
  observer.on_gone("c", "d/0", true);
  observer.on_apply("c", placement("f/0", 300, {}), adapters::PlacementOutcome::Applied);
  BOOST_TEST(observer.violations().size() == before);
}

BOOST_AUTO_TEST_CASE(the_observer_flags_reports_and_requests_that_break_the_invariants) {
  Observer observer;
  model::NodeState reported;
  reported.name = "n";
  reported.allocatable_cpu_milli = 1000;
  reported.allocated_cpu_milli = 1500;
  reported.max_pods = 10;
  observer.check_reported("c update", reported);
  BOOST_TEST_REQUIRE(observer.violations().size() == 1u);
  BOOST_TEST(observer.violations().back().find("cpu milli 1500 of 1000") != std::string::npos);
  v1::RequestList list;
  v1::RequestStatus& pending = *list.add_requests();
  pending.set_request_id("waits");
  pending.set_phase(v1::RequestStatus::PENDING);
  v1::RequestStatus& lost = *list.add_requests();
  lost.set_request_id("lost");
  lost.set_phase(v1::RequestStatus::LOST);
  observer.check_requests(list, {"waits", "lost", "vanished"}, {}, {});
  const auto& found = observer.violations();
  const auto mentions = [&](const std::string& text) {
    return std::any_of(found.begin(), found.end(),
                       [&](const std::string& v) { return v.find(text) != std::string::npos; });
  };
  BOOST_TEST(mentions("request waits still PENDING at rest"));
  BOOST_TEST(mentions("request lost was accepted and ended LOST"));
  BOOST_TEST(mentions("request vanished was accepted and is not in the book"));
}

// Each seed, with the fault kinds it ran with, found the defect named; fixed, it runs clean.
BOOST_AUTO_TEST_CASE(the_seeds_that_found_defects_run_clean) {
  const std::string messages = "drop,duplicate,reorder,delay,partition";
  const std::string crashes = messages + ",agent-crash,cluster-actor-crash";
  struct Found {
    uint64_t seed;
    std::string faults;
    const char* defect;
  };
  const std::vector<Found> found = {
      {3, "delay", "work that ended before its decision reached the hub left it PLACED"},
      {34, "drop", "a scheduler without any cluster's view decided with no reason"},
      {21, "partition", "a placement whose applied report was lost stayed reserved for ever"},
      {24, crashes, "a new agent was refused while its ClusterActor restarted"},
      {35, crashes, "a lost release left a placement running that no decision held"},
      {11, crashes, "a repeated commit was answered as a conflict and its placements orphaned"},
      {19, crashes, "releases died with a restarted ClusterActor"},
      {441, crashes, "a new agent did not release what an earlier run of it started"},
      {3076, messages, "a refusal that overtook its commit's answer was dropped"},
      {3370, messages, "a refusal told only in a snapshot was never handed back"},
      {983, messages + ",cluster-actor-crash",
       "a commit accepted by a ClusterActor that died before its round closed was kept"},
      {5980, crashes, "a gang whose refused replica found no place again stayed partially placed"},
      {7756, crashes,
       "the end of a replica placed again was dropped while its released original read FINISHED"},
      {9587, crashes,
       "replicas an earlier round kept stayed in the decision after their ClusterActor died"},
      {130, crashes + ",scheduler-crash",
       "what a scheduler that stopped mid-decision had placed kept running under a LOST request"},
      {143, crashes + ",scheduler-crash",
       "a LOST request's placement the agent already ran was never released"},
      {199, crashes + ",scheduler-crash",
       "a scheduler stopped while placing refused replicas again; the hub kept the old decision"},
      {924, crashes + ",scheduler-crash",
       "the hub kept a decision whose refused replica its stopped scheduler was placing again"},
      {1720, crashes + ",scheduler-crash",
       "orders of a stopped scheduler's decision died with a ClusterActor and nobody placed them"},
      {653, crashes + ",scheduler-crash",
       "the run counted as at rest while a ClusterActor still sent orders the agent had not run"},
      {7, messages + ",hub-crash",
       "a decision recovered after a hub crash kept a replica whose order died with the centre"},
      {9293, "all",
       "a request recovered while a refused replica was placed again read PLACED for ever"},
      {2843, "all",
       "of two replicas refused before their round closed, only the first was placed again"},
      {7949, "all",
       "an agent cut off when the centre restarted was refused on healing and never pushed again"},
      {5387, "all",
       "a feed entry of a restarted ClusterActor's predecessor, delivered late, was taken for the "
       "new one's and left a scheduler's copy behind for good"},
      {7, "agent-crash",
       "after a resync, every node-level commit to a node unchanged since conflicted (found by "
       "the probes placed after the faults)"},
  };
  for (const Found& defect : found) {
    RunSettings settings;
    settings.seed = defect.seed;
    std::string error;
    settings.faults = *FaultSet::parse(defect.faults, error);
    const RunReport report = unisched::simulation::run_simulation(settings);
    BOOST_TEST(report.violations.empty(),
               "seed " << defect.seed << " (" << defect.defect
                       << "): " << (report.violations.empty() ? "" : report.violations.front())
                       << "; replay: " << unisched::simulation::replay_command(settings));
  }
}

BOOST_AUTO_TEST_SUITE_END()
