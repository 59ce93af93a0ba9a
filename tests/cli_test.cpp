// Runs the unisched binary as a user would and checks exit codes and output.
#include <sys/wait.h>
#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <map>
#include <regex>

#include "tests/json.hpp"
#include "tests/test_files.hpp"

using unisched::testing::Json;
using unisched::testing::number;
using unisched::testing::parse_json;
using unisched::testing::read_file;
using unisched::testing::ScratchDirectory;
using unisched::testing::text;

namespace {

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

/// `unisched ARGUMENTS`, in `folder` if one is given.
RunResult run(const std::string& arguments, const std::string& folder = {}) {
  ScratchDirectory dir;
  const std::string out = dir.path() + "/out";
  const std::string err = dir.path() + "/err";
  const std::string command = (folder.empty() ? "" : "cd " + folder + " && ") +
                              std::string(UNISCHED_BINARY) + " " + arguments + " >" + out + " 2>" +
                              err + " </dev/null";
  const int status = std::system(command.c_str());
  RunResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = read_file(out);
  result.err = read_file(err);
  return result;
}

const std::string kSource = UNISCHED_SOURCE_DIR;

}  // namespace

BOOST_AUTO_TEST_SUITE(cli)

BOOST_AUTO_TEST_CASE(shipped_examples_all_validate) {
  const auto result = run("validate -R -f " + kSource + "/config");
  BOOST_TEST(result.exit_code == 0, result.err);
  BOOST_TEST(result.out.find("ClusterResourceProfile/cluster-a-gpu-profile valid") !=
             std::string::npos);
  BOOST_TEST(result.out.find("SchedulingQuota/team-b valid") != std::string::npos);
  BOOST_TEST(result.out.find("14 of 14 documents valid in 10 files; 0 problems; 5 documents of "
                             "other APIs left alone") != std::string::npos,
             result.out);
}

BOOST_AUTO_TEST_CASE(the_seeds_example_validates_and_keeps_its_words) {
  const std::string seed = kSource + "/config/profiles/design-example.yaml";
  const auto checked = run("validate -f " + seed);
  BOOST_TEST(checked.exit_code == 0, checked.err);
  BOOST_TEST(checked.out.find("ClusterResourceProfile/cluster-a-gpu-profile valid") !=
             std::string::npos);
  const auto written = run("validate -f " + seed + " -o yaml");
  BOOST_TEST(written.out.find("type: nvidia.com/gpu") != std::string::npos, written.out);
  BOOST_TEST(written.out.find("topology: NVLink-4") != std::string::npos, written.out);
  BOOST_TEST(written.out.find("clusterID: cluster-azure-eastus-01") != std::string::npos);
}

/// A problem line's fields: FILE:LINE: document N[ (Kind/name)]: FIELD.PATH: ... (or, for
/// text that is not YAML, "Malformed YAML" where the path goes).
struct ProblemLine {
  int line = 0;
  int document = -1;
  std::string object;  ///< Kind/name, when the document got that far
  std::string field;
  bool operator==(const ProblemLine& other) const {
    return line == other.line && document == other.document && object == other.object &&
           field == other.field;
  }
};

std::ostream& operator<<(std::ostream& out, const ProblemLine& p) {
  return out << p.line << "/" << p.document << "/" << p.object << "/" << p.field;
}

std::vector<ProblemLine> problem_lines(const std::string& err) {
  std::vector<ProblemLine> lines;
  const std::regex format(R"(^[^:\n]+:(\d+): document (\d+)(?: \(([^)]*)\))?: ([^:\n]+):)",
                          std::regex::multiline);
  for (std::sregex_iterator it(err.begin(), err.end(), format), end; it != end; ++it) {
    lines.push_back({std::stoi((*it)[1]), std::stoi((*it)[2]), (*it)[3], (*it)[4]});
  }
  return lines;
}

BOOST_AUTO_TEST_CASE(problems_exit_1_with_one_line_each) {
  const auto result =
      run("validate --log-level=off -o json -f " + kSource + "/tests/data/mixed.yaml");
  BOOST_TEST(result.exit_code == 1);
  const std::vector<ProblemLine> expected = {
      {19, 1, "ClusterResourceProfile/bad", "spec.compute.cpu"},
      {23, 1, "ClusterResourceProfile/bad", "spec.accelerators[0].count"},
      {29, 2, "", "Malformed YAML"},
  };
  BOOST_TEST(problem_lines(result.err) == expected, boost::test_tools::per_element());
  // The valid documents are still accepted.
  const Json valid = parse_json(result.out);
  std::vector<std::string> accepted;
  for (const auto& item : valid["items"]) {
    accepted.push_back(text(item["metadata"], "name"));
  }
  BOOST_TEST(accepted == (std::vector<std::string>{"good", "ok"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(every_problem_of_a_document_is_one_line_in_the_order_of_its_lines) {
  const auto result = run("validate -f " + kSource + "/tests/data/many-problems.yaml");
  BOOST_TEST(result.exit_code == 1);
  std::vector<int> lines;
  for (const ProblemLine& problem : problem_lines(result.err)) {
    BOOST_TEST(problem.document == 0);
    BOOST_TEST(problem.object == "SchedulingRequest/Bad_Name");
    lines.push_back(problem.line);
  }
  BOOST_TEST((lines == std::vector<int>{5, 7, 8, 10, 11, 12, 14}), result.err);
}

BOOST_AUTO_TEST_CASE(output_yaml_prints_only_valid_documents_in_canonical_form) {
  const auto result =
      run("validate --log-level=off -o yaml -f " + kSource + "/tests/data/mixed.yaml");
  BOOST_TEST(result.exit_code == 1);
  BOOST_TEST(result.out.find("name: good") != std::string::npos, result.out);
  BOOST_TEST(result.out.find("name: ok") != std::string::npos);
  BOOST_TEST(result.out.find("name: bad") == std::string::npos);
  BOOST_TEST(result.out.find("cpu: \"1\"") != std::string::npos);  // `cpu: 1` printed canonically
  BOOST_TEST(result.err.find("2 of 4 documents valid") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(output_json_reads_back) {
  ScratchDirectory dir;
  const auto first = run("validate --log-level=off -o json -f " + kSource + "/config/profiles");
  BOOST_TEST_REQUIRE(first.exit_code == 0, first.err);
  const std::string json = dir.write("all.json", first.out);
  const auto second = run("validate --log-level=off -o json -f " + json);
  // A kind: List is not one of ours, so reading it back is refused rather than misread.
  BOOST_TEST(second.exit_code == 1);
  BOOST_TEST(second.err.find("kind: Unsupported value: \"List\"") != std::string::npos, second.err);
}

BOOST_AUTO_TEST_CASE(every_verb_has_help) {
  for (const char* verb :
       {"run", "serve", "agent", "shard", "get", "validate", "simulate", "version"}) {
    const auto result = run(std::string(verb) + " --help");
    BOOST_TEST(result.exit_code == 0, verb);
    BOOST_TEST(result.out.find("Usage:\n  unisched " + std::string(verb)) != std::string::npos,
               result.out);
    BOOST_TEST(result.out.find("(repeatable) (repeatable)") == std::string::npos, verb);
    // Only the hub serves the status page at / (issue 66, item 1).
    const bool promises_page = result.out.find("status page at /") != std::string::npos;
    BOOST_TEST(promises_page == (std::string(verb) == "serve"), verb);
  }
  const auto top = run("--help");
  BOOST_TEST(top.exit_code == 0);
  BOOST_TEST(top.out.find("validate") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(usage_errors_exit_2_and_say_why) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "Usage:"},
      {"frobnicate", "unknown verb \"frobnicate\""},
      {"validate", "give at least one -f"},
      {"validate -f", "flag --filename: 1 required FILE|DIR missing"},
      {"validate --bogus", "unknown flag --bogus for 'unisched validate'"},
      {"validate -f x -o xml", "--output must be yaml or json"},
      {"validate -f x -o yaml -o json", "--output is given more than once"},
      {"validate -R=yes -f x", "takes no value"},
      {"validate stray", "unexpected argument \"stray\""},
      {"validate -f x --log-level=loud", "--log-level must be"},
      {"serve --cluster-update-rate fast",
       "--cluster-update-rate must be a whole number from 0 to 1000000, not \"fast\""},
      {"shard --hub 127.0.0.1:1 --cluster-change-rate -5",
       "--cluster-change-rate must be a whole number from 0 to 100000000"},
      {"serve --grpc-streams-per-address 0",
       "--grpc-streams-per-address must be a whole number from 1 to 192"},
  };
  for (const auto& [arguments, message] : cases) {
    const auto result = run(arguments);
    BOOST_TEST(result.exit_code == 2, "'" << arguments << "'");
    BOOST_TEST(result.err.find(message) != std::string::npos,
               "'" << arguments << "' said: " << result.err);
  }
}

/// Every request submitted is decided (placed, partially, unschedulable), still waiting at a
/// scheduler (by reason), or lost: counted where each is, so the sum can fail.
void check_every_request_accounted_for(const Json& report) {
  double waiting = 0;
  for (const auto& [reason, count] : report["waiting_by_reason"].items()) {
    waiting += count.get<double>();
    BOOST_TEST(count.get<double>() > 0, reason);
  }
  BOOST_TEST(waiting == number(report, "waiting"));
  BOOST_TEST(number(report, "requests") == number(report, "placed") +
                                               number(report, "partially_placed") +
                                               number(report, "unschedulable") +
                                               number(report, "waiting") + number(report, "lost"));
  if (number(report, "waiting") == 0) {
    BOOST_TEST(number(report, "oldest_waiting_s") == 0);
  }
  BOOST_TEST(!report["waiting_by_reason"].contains("scheduler not answering"));
}

BOOST_AUTO_TEST_CASE(run_shows_the_backlog_as_it_goes_and_accounts_for_every_request) {
  // Far more requests than two schedulers scoring every node of 4,000 decide: a backlog.
  const auto result = run("run --profiles " + kSource +
                          "/config/profiles --clusters 4 --nodes 1000 --node-sample 0 "
                          "--duration 3s --rate 400 --report json");
  BOOST_TEST_REQUIRE(result.exit_code == 0, result.err);
  const Json report = parse_json(result.out);
  BOOST_TEST_REQUIRE(report.is_object(), result.out);
  check_every_request_accounted_for(report);
  // Each progress line: the queue (with its oldest request when one waits) and the pace of
  // decisions.
  const std::regex progress_line(
      R"(t=\d\.\ds: .*; (0 waiting|\d+ waiting, oldest \d+\.\d s); \d+ decisions/s)");
  BOOST_TEST(std::regex_search(result.err, progress_line), result.err);
  BOOST_TEST(result.err.find("unschedulable " +
                             std::to_string(static_cast<int64_t>(number(report, "unschedulable"))) +
                             ", waiting ") != std::string::npos,
             result.err);
}

BOOST_AUTO_TEST_CASE(run_reports_every_cluster_as_json) {
  const auto result = run("run --log-level=warn --profiles " + kSource +
                          "/config/profiles --duration 4s --push-interval 100ms "
                          "--observe-interval 20ms --probe-interval 100ms --probe-timeout 300ms "
                          "--partition t4-useast:500ms:1500ms --report json");
  BOOST_TEST_REQUIRE(result.exit_code == 0, result.err);
  const Json report = parse_json(result.out);
  BOOST_TEST_REQUIRE(report.is_object(), result.out);
  BOOST_TEST(number(report, "deltas_applied") > 0);
  BOOST_TEST_REQUIRE(report["clusters"].size() == 5u);
  for (const auto& cluster : report["clusters"]) {
    const std::string id = text(cluster, "id");
    for (const char* field : {"version", "nodes", "updates_applied", "duplicates", "gaps"}) {
      BOOST_TEST(cluster.contains(field), id << " lacks " << field);
    }
    BOOST_TEST(number(cluster, "version") > 0, id);
    BOOST_TEST(number(cluster, "nodes") > 0, id);
    BOOST_TEST(cluster.value("healthy", false), id);
    if (id == "t4-useast") {  // cut off for a while: unhealthy, then resynced in full
      BOOST_TEST(number(cluster, "resyncs") >= 1);
      BOOST_TEST(number(cluster, "health_transitions") >= 3);
    }
  }
  BOOST_TEST(result.err.find("CLUSTER") != std::string::npos);  // the table goes to stderr
  BOOST_TEST(number(report, "requests") > 0);
  BOOST_TEST(number(report, "placed") > 0);
  BOOST_TEST(number(report, "commits") > 0);
  for (const char* field : {"unschedulable", "conflicts", "retries", "decision_latency_ms"}) {
    BOOST_TEST(report.contains(field), field);
  }
  BOOST_TEST(report["decision_latency_ms"]["p99"].get<double>() >=
             report["decision_latency_ms"]["p50"].get<double>());
  BOOST_TEST(number(report, "overcommits") == 0);
  check_every_request_accounted_for(report);
}

BOOST_AUTO_TEST_CASE(run_with_quotas_reports_each_tenant_within_its_budget) {
  const auto result = run("run --log-level=warn --profiles " + kSource +
                          "/config/profiles --duration 3s --rate 60 --mean-runtime 1s "
                          "--push-interval 100ms --observe-interval 20ms --report json --quotas " +
                          kSource + "/config/quotas/teams.yaml");
  BOOST_TEST_REQUIRE(result.exit_code == 0, result.err);
  const Json report = parse_json(result.out);
  BOOST_TEST_REQUIRE(report.is_object(), result.out);
  BOOST_TEST_REQUIRE(report["quotas"].size() == 2u);
  // teams.yaml: team-a may hold 24 GPUs + 8 borrowed, team-b 8 + what team-a lends (24).
  const std::map<std::string, double> most = {{"team-a", 32}, {"team-b", 32}};
  double held = 0;
  for (const auto& tenant : report["quotas"]) {
    const std::string queue = text(tenant, "queue");
    const std::string used = tenant["used"].value("GPU", std::string("0"));  // "12" or "500m"
    const double gpus = used.back() == 'm' ? std::stod(used) / 1000 : std::stod(used);
    BOOST_TEST(gpus <= most.at(queue), queue << " holds " << gpus);
    held += gpus;
  }
  BOOST_TEST(held <= 32);  // the cohort's pool
  BOOST_TEST(number(report, "placed") > 0);
  check_every_request_accounted_for(report);
  BOOST_TEST(result.err.find("tenant team-a") != std::string::npos, result.err);
}

BOOST_AUTO_TEST_CASE(racing_schedulers_under_churn_never_over_commit) {
  // Node-level checks also with several decisions of each scheduler in flight at once.
  for (const char* check : {"cluster", "node", "node --in-flight 4"}) {
    for (const char* seed : {"1", "2"}) {
      const auto result = run(
          std::string("run --log-level=warn --profiles ") + kSource +
          "/config/profiles --duration 2s --schedulers 3 --rate 150 --mean-runtime 500ms "
          "--churn 3 --pod-rate 80 --push-interval 50ms --observe-interval 10ms "
          "--report json --commit-check " +
          check + " --seed " + seed + " --scorers least-allocated=1,gpu-packing=2,locality=0.5");
      BOOST_TEST_REQUIRE(result.exit_code == 0, result.err);
      const Json report = parse_json(result.out);
      BOOST_TEST_REQUIRE(report.is_object(), result.out);
      BOOST_TEST(number(report, "overcommits") == 0, check << " seed " << seed);
      BOOST_TEST(number(report, "placed") > 0, check << " seed " << seed);
    }
  }
}

// The learning FGD as a preset: each of the racing schedulers gets its own policy (its
// observer counts that scheduler's arrivals), and nothing is over-committed.
BOOST_AUTO_TEST_CASE(run_places_with_the_fgd_preset_on_several_schedulers) {
  const auto result = run(std::string("run --log-level=warn --profiles ") + kSource +
                          "/config/profiles --duration 2s --schedulers 2 --rate 100 "
                          "--mean-runtime 500ms --report json --policy fgd --seed 3");
  BOOST_TEST_REQUIRE(result.exit_code == 0, result.err);
  const Json report = parse_json(result.out);
  BOOST_TEST_REQUIRE(report.is_object(), result.out);
  BOOST_TEST(number(report, "overcommits") == 0);
  BOOST_TEST(number(report, "placed") > 0);
}

// Bad flags of every verb, and what each says: tests/cli_messages_test.cpp.
BOOST_AUTO_TEST_CASE(simulate_reports_as_json) {
  const auto one = run("simulate --runs 1 --seed 2 --faults drop --report json");
  BOOST_TEST(one.exit_code == 0, one.err);
  const Json report = parse_json(one.out);
  BOOST_TEST(number(report, "runs") == 1);
  BOOST_TEST(number(report, "violations") == 0);
}

BOOST_AUTO_TEST_CASE(version_names_the_libraries) {
  const auto result = run("version");
  BOOST_TEST(result.exit_code == 0);
  BOOST_TEST(result.out.find("CAF 0.17") != std::string::npos, result.out);
  BOOST_TEST(result.out.find("gRPC 1.") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
