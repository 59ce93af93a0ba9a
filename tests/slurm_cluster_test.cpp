// The Slurm adapter against real slurmctld and slurmd processes (tests/slurm_daemons.hpp):
// nodes with their GPUs by model, what a job submitted to Slurm directly takes, a drained node,
// and no change reported when nothing changed. One cluster per process: libslurm reads one
// slurm.conf per process.
#include "adapters/slurm/slurm_cluster.hpp"

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "tests/slurm_daemons.hpp"

using namespace unisched;
using unisched::adapters::slurm::SlurmCluster;
using unisched::testing::eventually;
using unisched::testing::SlurmAvailable;
using unisched::testing::SlurmDaemons;

namespace {

/// The nodes as the adapter reports them (its list when made, then its changes), by name.
struct AdapterView {
  std::map<std::string, model::NodeState> nodes;
  size_t changes = 0;

  explicit AdapterView(SlurmCluster& cluster) {
    cluster.poll_changes();  // reported from here on; the list holds them (or newer)
    for (model::NodeState& node : cluster.list_nodes()) {
      nodes[node.name] = std::move(node);
    }
  }

  void poll(SlurmCluster& cluster) {
    for (model::NodeChange& change : cluster.poll_changes()) {
      ++changes;
      if (change.kind == model::NodeChangeKind::Remove) {
        nodes.erase(change.node.name);
      } else {
        nodes[change.node.name] = std::move(change.node);
      }
    }
  }
};

/// One Slurm cluster and one adapter for the in-process tests (libslurm reads one slurm.conf
/// per process), started by the first test that asks and stopped at exit.
struct InProcess {
  SlurmDaemons slurm{{{"gpu1", 16, 65536, {{"a100", 4}}, "nvlink"},
                      {"gpu2", 16, 65536, {{"a100", 1}, {"v100", 1}}, ""},
                      {"cpu1", 8, 32768, {}, ""}}};
  std::unique_ptr<SlurmCluster> cluster;

  InProcess() { cluster = connect(); }

  std::unique_ptr<SlurmCluster> connect() const {
    adapters::slurm::SlurmOptions options;
    options.slurm_conf = slurm.conf;
    options.poll_interval = std::chrono::milliseconds(100);
    options.pending_limit = std::chrono::seconds(2);
    options.work_dir = slurm.dir.path();
    auto connected = SlurmCluster::connect(options);
    BOOST_TEST_REQUIRE(connected.ok(), connected.status().message());
    return std::move(*connected);
  }
};

InProcess& in_process() {
  static InProcess shared;
  return shared;
}

/// Waits for the outcome of `placement`.
adapters::LaterOutcome outcome_of(SlurmCluster& cluster, const std::string& placement) {
  std::optional<adapters::LaterOutcome> found;
  eventually(
      [&] {
        for (auto& outcome : cluster.poll_outcomes()) {
          found = outcome.id == placement ? std::optional(outcome) : found;
        }
        return found.has_value();
      },
      "the outcome of " + placement, std::chrono::seconds(30));
  return *found;
}

int allocated_gpus(const model::NodeState& node) {
  int taken = 0;
  for (const auto& device : node.devices) {
    taken += device.allocated_milli > 0 ? 1 : 0;
  }
  return taken;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(slurm_cluster)

BOOST_AUTO_TEST_CASE(a_real_slurm_cluster_is_read_as_it_changes,
                     *boost::unit_test::precondition(SlurmAvailable{})) {
  const SlurmDaemons& slurm = in_process().slurm;
  SlurmCluster& cluster = *in_process().cluster;
  BOOST_TEST(cluster.profile().spec.cluster_id == "slurm-test");  // Slurm's ClusterName
  BOOST_TEST((cluster.profile().spec.machine_type == model::MachineType::BareMetal));
  AdapterView view(cluster);
  BOOST_TEST_REQUIRE(view.nodes.size() == 3u);
  const model::NodeState& gpu2 = view.nodes.at("gpu2");
  BOOST_TEST(gpu2.allocatable_cpu_milli == 16000);
  BOOST_TEST_REQUIRE(gpu2.devices.size() == 2u);
  BOOST_TEST(gpu2.devices[0].model.str() == "a100");
  BOOST_TEST(gpu2.devices[1].model.str() == "v100");
  BOOST_TEST(view.nodes.at("gpu1").labels.count("feature.slurm.schedmd.com/nvlink") == 1u);
  BOOST_TEST(gpu2.node_group == "main");  // its partition
  BOOST_TEST(gpu2.labels.at(adapters::slurm::kPartitionsLabel) == "main");

  // Nothing changes: Slurm's pings are not reported as changes.
  const size_t changes = view.changes;
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  view.poll(cluster);
  BOOST_TEST(view.changes == changes);

  // A job submitted to Slurm directly shows as what it takes, on the indexes Slurm chose.
  const auto [submitted, job] = slurm.run(
      "sbatch --parsable --nodelist=gpu1 --gres=gpu:a100:2 --cpus-per-task=4 --mem=2G "
      "--chdir=" +
      slurm.dir.path() + " -o /dev/null --wrap 'sleep 60'");
  BOOST_TEST_REQUIRE(submitted == 0, job);
  eventually(
      [&] {
        view.poll(cluster);
        const model::NodeState& gpu1 = view.nodes.at("gpu1");
        return gpu1.allocated_cpu_milli == 4000 && allocated_gpus(gpu1) == 2;
      },
      "the direct job's cpus and GPUs in the view", std::chrono::seconds(20));
  BOOST_TEST(view.nodes.at("gpu1").allocated_memory_bytes == int64_t{2048} << 20);
  BOOST_TEST(view.nodes.at("gpu1").devices[0].allocated_milli == model::kWholeDeviceMilli);

  // A drained node takes no work, and says why.
  const auto drained = slurm.run("scontrol update nodename=cpu1 state=drain reason=maintenance");
  BOOST_TEST_REQUIRE(drained.first == 0, drained.second);
  eventually(
      [&] {
        view.poll(cluster);
        return !view.nodes.at("cpu1").schedulable;
      },
      "cpu1 unschedulable once drained", std::chrono::seconds(20));
  BOOST_TEST(view.nodes.at("cpu1").labels.at("slurm.schedmd.com/reason") == "maintenance");
  slurm.run("scontrol update nodename=cpu1 state=resume");

  // The job ends: its resources are free again.
  slurm.run("scancel --full " + job.substr(0, job.find_first_of("\n;")));
  eventually(
      [&] {
        view.poll(cluster);
        return view.nodes.at("gpu1").allocated_cpu_milli == 0 &&
               allocated_gpus(view.nodes.at("gpu1")) == 0;
      },
      "the cancelled job's resources free", std::chrono::seconds(20));
  BOOST_TEST(cluster.skipped() == 0u);
}

BOOST_AUTO_TEST_CASE(placements_run_as_batch_jobs_pinned_to_their_node,
                     *boost::unit_test::precondition(SlurmAvailable{})) {
  const SlurmDaemons& slurm = in_process().slurm;
  SlurmCluster& cluster = *in_process().cluster;
  // Two of gpu1's GPUs, running the request's own command; Slurm picks the indexes.
  adapters::Placement train{
      "train/0", "gpu1", 2000, int64_t{1} << 30, {2, 3}, model::kWholeDeviceMilli, {}, {}};
  train.pod_template = R"({"spec":{"containers":[{"name":"w","command":["sh","-c"],)"
                       R"("args":["echo GPUS=$CUDA_VISIBLE_DEVICES; sleep 60"]}]}})";
  BOOST_TEST((cluster.apply(train) == adapters::PlacementOutcome::Pending));
  const auto ran = outcome_of(cluster, "train/0");
  BOOST_TEST_REQUIRE((ran.outcome == adapters::PlacementOutcome::Applied), ran.reason);
  const auto [listed, queue] = slurm.run("squeue -h -o '%j|%T|%N|%b|%C|%k'");
  BOOST_TEST(
      queue.find("unisched|RUNNING|gpu1|gres:gpu:a100:2|2|unisched.io/placement-id=train/0") !=
          std::string::npos,
      queue);
  std::string output;
  eventually(
      [&] {
        for (const auto& entry : std::filesystem::directory_iterator(slurm.dir.path())) {
          const std::string name = entry.path().filename().string();
          if (name.rfind("unisched-", 0) == 0) {
            output = unisched::testing::read_file(entry.path().string());
          }
        }
        return output.find("GPUS=") != std::string::npos;
      },
      "the job's own output", std::chrono::seconds(20));
  BOOST_TEST(output.find("GPUS=0,1") != std::string::npos, output);  // Slurm's choice, not 2,3
  BOOST_TEST((cluster.apply(train) == adapters::PlacementOutcome::DuplicateId));
  // What Slurm cannot take is refused in its words.
  adapters::Placement huge{"huge/0", "gpu2", 1000, int64_t{100} << 30, {}, 1000, {}, {}};
  cluster.apply(huge);
  const auto refused = outcome_of(cluster, "huge/0");
  BOOST_TEST((refused.outcome != adapters::PlacementOutcome::Applied));
  BOOST_TEST(refused.reason.find("slurm refused the job") != std::string::npos, refused.reason);
  // A placement whose resources the cluster's own jobs took pends, and is refused in time.
  const auto [held, holder] = slurm.run(
      "sbatch --parsable --nodelist=gpu2 --gres=gpu:v100:1 -o /dev/null --wrap 'sleep 60'");
  BOOST_TEST_REQUIRE(held == 0, holder);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  adapters::Placement late{"late/0", "gpu2", 1000, int64_t{1} << 30, {1}, 1000, {}, {}};
  cluster.apply(late);
  const auto expired = outcome_of(cluster, "late/0");
  BOOST_TEST(expired.reason.find("still pending after 2 s") != std::string::npos, expired.reason);
  // A restarted adapter finds its running job again: no duplicate, and release cancels it.
  auto restarted = in_process().connect();
  BOOST_TEST((restarted->apply(train) == adapters::PlacementOutcome::DuplicateId));
  BOOST_TEST((restarted->running_placements() == std::vector<std::string>{"train/0"}));
  BOOST_TEST(restarted->release("train/0"));
  eventually([&] { return slurm.run("squeue -h -n unisched").second.empty(); },
             "no unisched job left", std::chrono::seconds(20));
  slurm.run("scancel --full " + holder.substr(0, holder.find_first_of("\n;")));
}

BOOST_AUTO_TEST_CASE(the_view_survives_slurmctld_restarting,
                     *boost::unit_test::precondition(SlurmAvailable{})) {
  SlurmDaemons& slurm = in_process().slurm;
  SlurmCluster& cluster = *in_process().cluster;
  AdapterView view(cluster);
  BOOST_TEST_REQUIRE(view.nodes.size() == 3u);
  // While slurmctld is away the adapter keeps its last state; once back, changes flow again.
  slurm.restart_controller();
  const auto [submitted, job] = slurm.run(
      "sbatch --parsable --nodelist=gpu2 --cpus-per-task=3 -o /dev/null --wrap 'sleep 60'");
  BOOST_TEST_REQUIRE(submitted == 0, job);
  eventually(
      [&] {
        view.poll(cluster);
        return view.nodes.at("gpu2").allocated_cpu_milli == 3000;
      },
      "a job submitted after the restart in the view", std::chrono::seconds(30));
  BOOST_TEST(view.nodes.size() == 3u);
  BOOST_TEST(cluster.skipped() == 0u);
  slurm.run("scancel --full " + job.substr(0, job.find_first_of("\n;")));
}

BOOST_AUTO_TEST_CASE(the_main_job_runs_a_slurm_cluster_beside_simulated_ones,
                     *boost::unit_test::precondition(SlurmAvailable{})) {
  const SlurmDaemons& slurm = in_process().slurm;
  unisched::testing::ScratchDirectory scratch;
  const std::string out = scratch.path() + "/run.json";
  const int status = std::system((unisched::testing::kBinary + " run --profiles " +
                                  unisched::testing::kProfiles + " --slurm-conf " + slurm.conf +
                                  " --duration 3s --report json >" + out + " 2>/dev/null")
                                     .c_str());
  BOOST_TEST(WEXITSTATUS(status) == 0);
  const unisched::testing::Json report =
      unisched::testing::parse_json(unisched::testing::read_file(out));
  BOOST_TEST_REQUIRE(report.contains("clusters"), report.dump());
  std::map<std::string, unisched::testing::Json> clusters;
  for (const auto& cluster : report["clusters"]) {
    clusters[cluster.value("id", "")] = cluster;
  }
  BOOST_TEST_REQUIRE(clusters.count("slurm-test") == 1u, report.dump());
  BOOST_TEST(clusters.size() > 1u);  // beside the simulated ones
  BOOST_TEST(clusters["slurm-test"].value("nodes", 0) == 3);
  BOOST_TEST(clusters["slurm-test"].value("healthy", false));
  BOOST_TEST(report.value("overcommits", -1) == 0);
}

BOOST_AUTO_TEST_CASE(only_the_partitions_asked_for_are_read,
                     *boost::unit_test::precondition(SlurmAvailable{})) {
  const SlurmDaemons& slurm = in_process().slurm;
  adapters::slurm::SlurmOptions options;
  options.slurm_conf = slurm.conf;
  options.cluster_id = "main-only";
  options.partitions = {"main"};
  auto main_only = SlurmCluster::connect(options);
  BOOST_TEST_REQUIRE(main_only.ok(), main_only.status().message());
  BOOST_TEST((*main_only)->list_nodes().size() == 3u);
  BOOST_TEST((*main_only)->profile().spec.cluster_id == "main-only");
  options.partitions = {"elsewhere"};
  auto none = SlurmCluster::connect(options);
  BOOST_TEST_REQUIRE(none.ok(), none.status().message());
  BOOST_TEST((*none)->list_nodes().empty());
  options.cluster_id = "Not_A_Label";
  const auto refused = SlurmCluster::connect(options);
  BOOST_TEST_REQUIRE(!refused.ok());
  BOOST_TEST(std::string(refused.status().message()).find("--cluster") == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
