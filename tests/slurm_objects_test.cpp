// Slurm's GRES strings and node records as the adapter reads them, without daemons: the formats
// slurmctld sends (from a real 22.05 cluster), and malformed ones refused with the field named.
#include <boost/test/unit_test.hpp>

#include "adapters/slurm/gres.hpp"
#include "adapters/slurm/job_script.hpp"
#include "adapters/slurm/job_tracker.hpp"
#include "adapters/slurm/slurm_node.hpp"

using namespace unisched;
using namespace unisched::adapters::slurm;
using unisched::adapters::PlacementOutcome;

namespace {

SlurmNode gpu_node() {
  SlurmNode node;
  node.name = "gpu2";
  node.cpus = 16;
  node.alloc_cpus = 4;
  node.real_memory_mb = 65536;
  node.alloc_memory_mb = 4096;
  node.gres = "gpu:a100:4,gpu:v100:2";
  node.gres_used = "gpu:a100:3(IDX:0-2),gpu:v100:0(IDX:N/A)";
  node.state = "MIXED";
  node.partitions = "main,gpu";
  node.features = "nvlink,ib";
  return node;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(slurm_objects)

BOOST_AUTO_TEST_CASE(gres_lists_are_read_as_slurm_prints_them) {
  const auto configured = parse_gres("gpu:a100:4(S:0-1),gpu:v100:2,gpu:3,nic:1");
  BOOST_TEST_REQUIRE(configured.ok(), configured.status().message());
  BOOST_TEST_REQUIRE(configured->size() == 4u);
  BOOST_TEST((*configured)[0].type == "a100");
  BOOST_TEST((*configured)[0].count == 4);
  BOOST_TEST((*configured)[0].indexes.empty());  // S: is socket affinity, not use
  BOOST_TEST((*configured)[2].type.empty());     // an untyped GPU
  BOOST_TEST((*configured)[2].count == 3);
  BOOST_TEST((*configured)[3].name == "nic");
  const auto used = parse_gres("gpu:a100:3(IDX:0,2-3),gpu:v100:0(IDX:N/A)");
  BOOST_TEST_REQUIRE(used.ok(), used.status().message());
  BOOST_TEST(((*used)[0].indexes == std::vector<int32_t>{0, 2, 3}));
  BOOST_TEST((*used)[1].indexes.empty());
  for (const char* nothing : {"", "(null)", "N/A"}) {
    BOOST_TEST(parse_gres(nothing)->empty(), nothing);
  }
}

BOOST_AUTO_TEST_CASE(malformed_gres_is_refused_naming_the_entry) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"gpu:a100:x", "the count is not a number"},
      {"gpu:a100:4:9", "expected NAME[:TYPE][:COUNT]"},
      {":a100:4", "expected NAME[:TYPE][:COUNT]"},
      {"gpu:a100:2(IDX:3-1)", "index range \"3-1\""},
      {"gpu:a100:2(IDX:0-1", "an unclosed parenthesis"},
      {"gpu:a100:-2", "a negative count"},
      {"gpu:a100:1(IDX:99999)", "index range \"99999\""},
  };
  for (const auto& [text, why] : cases) {
    const auto parsed = parse_gres(text);
    BOOST_TEST(!parsed.ok(), text);
    const std::string message(parsed.status().message());
    BOOST_TEST(message.find(why) != std::string::npos, text << ": " << message);
  }
}

BOOST_AUTO_TEST_CASE(a_node_becomes_cpus_memory_and_one_device_per_gpu) {
  const auto state = node_state_of(gpu_node());
  BOOST_TEST_REQUIRE(state.ok(), state.status().message());
  BOOST_TEST(state->allocatable_cpu_milli == 16000);
  BOOST_TEST(state->allocated_cpu_milli == 4000);
  BOOST_TEST(state->allocated_memory_bytes == int64_t{4096} << 20);
  BOOST_TEST_REQUIRE(state->devices.size() == 6u);
  BOOST_TEST(state->devices[0].model.str() == "a100");
  BOOST_TEST(state->devices[5].model.str() == "v100");
  // Slurm's indexes, not the centre's: a100 devices 0-2 are taken, 3 and the v100s are free.
  for (size_t i = 0; i < 6; ++i) {
    BOOST_TEST(state->devices[i].allocated_milli == (i < 3 ? model::kWholeDeviceMilli : 0), i);
  }
  BOOST_TEST(state->schedulable);
  BOOST_TEST(state->node_group == "main");
  BOOST_TEST(state->labels.at(kPartitionsLabel) == "main-gpu");
  BOOST_TEST(state->labels.at(std::string(kFeatureLabelPrefix) + "nvlink") == "true");
  BOOST_TEST(state->labels.at("slurm.schedmd.com/state") == "MIXED");
}

BOOST_AUTO_TEST_CASE(drained_down_and_silent_nodes_take_no_work_and_say_why) {
  SlurmNode drained = gpu_node();
  drained.drain = true;
  drained.reason = "maintenance by admin";
  const auto state = node_state_of(drained);
  BOOST_TEST_REQUIRE(state.ok());
  BOOST_TEST(!state->schedulable);
  BOOST_TEST(state->labels.at("slurm.schedmd.com/state") == "MIXED-DRAIN");
  BOOST_TEST(state->labels.at("slurm.schedmd.com/reason") == "maintenance-by-admin");
  SlurmNode down = gpu_node();
  down.state = "DOWN";
  BOOST_TEST(!node_state_of(down)->schedulable);
  SlurmNode silent = gpu_node();
  silent.not_responding = true;
  BOOST_TEST(!node_state_of(silent)->schedulable);
}

BOOST_AUTO_TEST_CASE(a_node_slurm_cannot_describe_is_refused_naming_node_and_field) {
  SlurmNode bad_used = gpu_node();
  bad_used.gres_used = "gpu:a100:1(IDX:7)";  // the node has four a100s and two v100s
  SlurmNode over = gpu_node();
  over.alloc_cpus = 17;
  SlurmNode bad_name = gpu_node();
  bad_name.name = "GPU_2";
  SlurmNode bad_gres = gpu_node();
  bad_gres.gres = "gpu:a100:lots";
  SlurmNode many = gpu_node();
  many.gres = "gpu:a100:65";
  SlurmNode vast = gpu_node();  // 128 TiB: over the most a node may report (2^46 bytes)
  vast.real_memory_mb = int64_t{128} << 20;
  const std::vector<std::pair<SlurmNode, std::string>> cases = {
      {bad_used, "GresUsed: index 7 beyond"},
      {over, "CPUAlloc: allocated 17 of 16"},
      {bad_name, "NodeName"},
      {bad_gres, "Gres: GRES \"gpu:a100:lots\""},
      {many, "more than 64 GPUs"},
      {vast, "RealMemory: not a memory size in MiB"},
  };
  for (const auto& [node, why] : cases) {
    const auto state = node_state_of(node);
    BOOST_TEST_REQUIRE(!state.ok(), why);
    const std::string message(state.status().message());
    BOOST_TEST(message.find("slurm node \"" + node.name + "\"") == 0u, message);
    BOOST_TEST(message.find(why) != std::string::npos, message);
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(slurm_jobs)

BOOST_AUTO_TEST_CASE(a_batch_script_runs_the_first_containers_command_quoted) {
  const auto script = batch_script(
      R"({"spec":{"containers":[{"name":"w","command":["sh","-c"],"args":["echo it's $X"]}]}})");
  BOOST_TEST_REQUIRE(script.ok(), script.status().message());
  BOOST_TEST(*script == "#!/bin/sh\nexec 'sh' '-c' 'echo it'\\''s $X'\n");
  BOOST_TEST(*batch_script("") == "#!/bin/sh\nexec sleep infinity\n");
  BOOST_TEST(*batch_script(R"({"spec":{"containers":[{"name":"w"}]}})") ==
             "#!/bin/sh\nexec sleep infinity\n");
  const auto bad = batch_script(R"({"spec":{"containers":[{"command":"sleep 1"}]}})");
  BOOST_TEST_REQUIRE(!bad.ok());
  BOOST_TEST(std::string(bad.status().message()) ==
             "spec.template.spec.containers[0].command: must be a list of strings");
  BOOST_TEST(!batch_script("{not json").ok());
}

BOOST_AUTO_TEST_CASE(a_placement_is_applied_when_its_job_runs_and_refused_when_it_cannot) {
  using Clock = JobTracker::Clock;
  JobTracker tracker(std::chrono::seconds(5));
  const Clock::time_point start{};
  tracker.submitted("a/0", 11, "gpu1", start);
  tracker.submitted("b/0", 12, "gpu1", start);
  tracker.submitted("c/0", 13, "gpu2", start);
  const std::string a = JobTracker::comment_for("a/0");
  BOOST_TEST(*JobTracker::placement_in(a) == "a/0");
  BOOST_TEST(!JobTracker::placement_in("someone else's job").has_value());
  tracker.on_jobs({{11, a, "RUNNING", "gpu1", "None"},
                   {12, JobTracker::comment_for("b/0"), "FAILED", "", "BadConstraints"},
                   {13, JobTracker::comment_for("c/0"), "PENDING", "", "Resources"}},
                  start + std::chrono::seconds(1));
  auto outcomes = tracker.take_outcomes();
  BOOST_TEST_REQUIRE(outcomes.size() == 2u);
  BOOST_TEST(outcomes[0].id == "a/0");
  BOOST_TEST((outcomes[0].outcome == PlacementOutcome::Applied));
  BOOST_TEST(outcomes[1].id == "b/0");
  BOOST_TEST(
      outcomes[1].reason.find("ended FAILED before it ran (BadConstraints)") != std::string::npos,
      outcomes[1].reason);
  // Still pending after the limit: refused with the reason it waits, once its job is cancelled.
  BOOST_TEST(tracker.expire(start + std::chrono::seconds(4)).empty());
  auto cancel = tracker.expire(start + std::chrono::seconds(6));
  BOOST_TEST_REQUIRE(cancel.size() == 1u);
  BOOST_TEST(cancel[0].job == 13u);
  BOOST_TEST(tracker.take_outcomes().empty());  // not refused before the job is cancelled
  tracker.report(std::move(cancel[0].outcome));
  outcomes = tracker.take_outcomes();
  BOOST_TEST_REQUIRE(outcomes.size() == 1u);
  BOOST_TEST(outcomes[0].reason.find("still pending after 5 s (Resources)") != std::string::npos);
  // Release cancels the running one; an unknown placement has nothing to release.
  BOOST_TEST(*tracker.release("a/0") == 11u);
  BOOST_TEST(!tracker.release("a/0").has_value());
  BOOST_TEST(tracker.take_finished().empty());  // released here: not "finished by itself"
}

BOOST_AUTO_TEST_CASE(jobs_that_end_after_running_are_reported_finished_once) {
  JobTracker tracker(std::chrono::seconds(5));
  tracker.submitted("d/0", 31, "gpu1", {});
  tracker.submitted("e/0", 32, "gpu1", {});
  tracker.on_jobs({{31, JobTracker::comment_for("d/0"), "RUNNING", "gpu1", "None"},
                   {32, JobTracker::comment_for("e/0"), "RUNNING", "gpu1", "None"}},
                  {});
  BOOST_TEST(tracker.take_finished().empty());
  // d completes; e is no longer listed (older than MinJobAge): both ended after running.
  tracker.on_jobs({{31, JobTracker::comment_for("d/0"), "COMPLETED", "gpu1", "None"}}, {});
  BOOST_TEST((tracker.take_finished() == std::vector<std::string>{"d/0", "e/0"}));
  tracker.on_jobs({}, {});
  BOOST_TEST(tracker.take_finished().empty());
}

BOOST_AUTO_TEST_CASE(a_job_slurm_ran_on_another_node_is_cancelled_before_it_is_refused) {
  JobTracker tracker(std::chrono::seconds(5));
  tracker.submitted("f/0", 41, "gpu1", {});
  tracker.on_jobs({{41, JobTracker::comment_for("f/0"), "RUNNING", "gpu2", "None"}}, {});
  BOOST_TEST(!tracker.knows("f/0"));
  BOOST_TEST(tracker.take_outcomes().empty());
  auto cancel = tracker.expire({});
  BOOST_TEST_REQUIRE(cancel.size() == 1u);
  BOOST_TEST(cancel[0].job == 41u);
  tracker.report(std::move(cancel[0].outcome));
  const auto outcomes = tracker.take_outcomes();
  BOOST_TEST_REQUIRE(outcomes.size() == 1u);
  BOOST_TEST((outcomes[0].outcome == PlacementOutcome::NoSuchNode));
  BOOST_TEST(outcomes[0].reason == "slurm ran job 41 on gpu2, not on gpu1");
  BOOST_TEST(tracker.expire({}).empty());  // cancelled once
}

BOOST_AUTO_TEST_CASE(after_a_restart_the_agent_finds_its_running_jobs_again) {
  JobTracker tracker(std::chrono::seconds(5));
  tracker.on_jobs({{21, JobTracker::comment_for("web/0"), "RUNNING", "gpu1", "None"},
                   {22, JobTracker::comment_for("old/0"), "COMPLETED", "gpu1", "None"},
                   {23, "", "RUNNING", "gpu2", "None"}},
                  {});
  BOOST_TEST(tracker.knows("web/0"));  // placed again under that id would be a duplicate
  BOOST_TEST(!tracker.knows("old/0"));
  BOOST_TEST(tracker.take_outcomes().empty());
  BOOST_TEST(*tracker.release("web/0") == 21u);
}

BOOST_AUTO_TEST_SUITE_END()
