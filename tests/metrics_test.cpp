// Prometheus metrics: the exposition text read back by a strict parser of the format (names,
// HELP/TYPE before samples, escaping, histogram buckets), and a real `serve --metrics` scraped
// over HTTP while an agent's cluster joins.
#include <httplib.h>
#include <yaml-cpp/yaml.h>

#include <boost/test/unit_test.hpp>

#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "messages/latency_buckets.hpp"
#include "runtime/grpc_call_stats.hpp"
#include "runtime/hub_metrics.hpp"
#include "runtime/prometheus_text.hpp"
#include "runtime/status_json.hpp"
#include "tests/hub_process.hpp"
#include "tests/json.hpp"
#include "tests/raw_socket.hpp"

namespace {

using unisched::runtime::HubMetricsInput;
using unisched::runtime::PrometheusText;

/// The text format's rules, as Prometheus' own parser applies them: every sample by its series
/// ("name{labels}" as written) and value, or the first line that breaks a rule.
struct Parsed {
  std::map<std::string, double> series;
  std::string error;
};

Parsed parse_strictly(const std::string& text) {
  static const std::regex help("# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) .+");
  static const std::regex type("# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram)");
  static const std::regex sample(
      R"(([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\["\\n])*"(,[a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\["\\n])*")*\})? (\S+))");
  Parsed out;
  std::set<std::string> families;
  std::string helped, family, family_type;
  if (text.empty() || text.back() != '\n') {
    out.error = "the text does not end with a line feed";
    return out;
  }
  std::istringstream lines(text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    const std::string where = " (line " + std::to_string(number) + ": " + line + ")";
    std::smatch m;
    if (std::regex_match(line, m, help)) {
      helped = m[1];
      if (families.count(helped) > 0) {
        out.error = "family declared twice" + where;
      }
    } else if (std::regex_match(line, m, type)) {
      family = m[1];
      family_type = m[2];
      families.insert(family);
      const bool total = family.size() > 6 && family.substr(family.size() - 6) == "_total";
      out.error = family != helped                      ? "TYPE without its HELP" + where
                  : family.rfind("unisched_", 0) != 0   ? "no unisched_ prefix" + where
                  : (family_type == "counter") != total ? "_total iff a counter" + where
                                                        : "";
    } else if (!std::regex_match(line, m, sample)) {
      out.error = "not a sample" + where;
    } else {
      const std::string metric = m[1];
      const bool belongs =
          metric == family || (family_type == "histogram" &&
                               (metric == family + "_bucket" || metric == family + "_sum" ||
                                metric == family + "_count"));
      const std::string key = line.substr(0, line.rfind(' '));
      const std::string value = m[m.size() - 1];
      char* end = nullptr;
      const double parsed = value == "+Inf" ? HUGE_VAL : std::strtod(value.c_str(), &end);
      out.error = !belongs                       ? "sample outside its family" + where
                  : out.series.count(key) > 0    ? "series twice" + where
                  : value != "+Inf" && *end != 0 ? "not a number" + where
                                                 : "";
      out.series[key] = parsed;
    }
    if (!out.error.empty()) {
      return out;
    }
  }
  return out;
}

/// A histogram's buckets: cumulative, rising, the +Inf one equal to _count.
void check_histogram(const std::map<std::string, double>& series, const std::string& name,
                     const std::string& labels) {
  const std::string before_le = labels.empty() ? "" : labels + ",";
  const std::string own = labels.empty() ? "" : "{" + labels + "}";
  double previous = 0;
  for (const double bound : unisched::kLatencyBoundsSeconds) {
    std::ostringstream le;
    le << bound;
    const std::string key = name + "_bucket{" + before_le + "le=\"" + le.str() + "\"}";
    BOOST_TEST_REQUIRE(series.count(key) == 1, "missing " + key);
    BOOST_TEST(series.at(key) >= previous, key);
    previous = series.at(key);
  }
  const double all = series.at(name + "_bucket{" + before_le + "le=\"+Inf\"}");
  BOOST_TEST(all >= previous);
  BOOST_TEST(all == series.at(name + "_count" + own));
}

HubMetricsInput two_clusters_two_schedulers() {
  HubMetricsInput input;
  auto* a = input.clusters.add_clusters();
  a->set_cluster_id("gpu-east");
  a->set_nodes(4);
  a->set_healthy(true);
  a->set_staleness_ms(1500);
  a->set_updates_applied(12);
  auto* t4 = a->add_models();
  t4->set_model("nvidia-t4");
  t4->set_devices(8);
  t4->set_free_devices(3);
  auto* odd = input.clusters.add_clusters();
  odd->set_cluster_id("odd\"name\\with\nbreaks");  // cluster ids are labels: escaped, never names
  odd->set_resyncs(2);
  input.schedulers.resize(2);
  input.schedulers[0].set_placed(5);
  input.schedulers[0].set_conflicts(1);
  input.schedulers[0].set_waiting(7);
  (*input.schedulers[0].mutable_undecided_by_reason())["committing"] = 1;
  (*input.schedulers[0].mutable_undecided_by_reason())["queued"] = 6;
  input.schedulers[0].set_oldest_undecided_seconds(2.5);
  input.schedulers[0].mutable_decision_latency_buckets()->Resize(
      unisched::kLatencyBoundsSeconds.size() + 1, 0);
  input.schedulers[0].set_decision_latency_buckets(3, 4);  // 4 at <= 1 ms
  input.schedulers[0].set_decision_latency_buckets(
      static_cast<int>(unisched::kLatencyBoundsSeconds.size()), 1);  // 1 above every bound
  input.schedulers[0].set_decision_latency_seconds_sum(12.5);
  return input;
}

/// The port a child printed as "metrics on 127.0.0.1:PORT", once it has.
int metrics_port(const unisched::testing::ChildProcess& process) {
  const std::string marker = "metrics on 127.0.0.1:";
  unisched::testing::ActorHarness::wait_until(
      [&] { return process.output().find(marker) != std::string::npos; }, "the metrics port");
  const std::string log = process.output();
  return std::stoi(log.substr(log.find(marker) + marker.size()));
}

/// GET /metrics on a loopback port, read by the strict parser (which must accept it).
std::map<std::string, double> scrape_port(int port) {
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(5, 0);
  const auto response = client.Get("/metrics");
  BOOST_TEST_REQUIRE(static_cast<bool>(response), "no answer from the metrics port");
  BOOST_TEST(response->status == 200);
  BOOST_TEST(response->get_header_value("Content-Type") ==
             unisched::runtime::kPrometheusContentType);
  Parsed parsed = parse_strictly(response->body);
  BOOST_TEST_REQUIRE(parsed.error.empty(), parsed.error);
  return parsed.series;
}

/// The series' value once `ready` holds of it (20 s at most).
double value_once(int port, const std::string& series, const std::function<bool(double)>& ready) {
  double value = 0;
  unisched::testing::ActorHarness::wait_until(
      [&] {
        const auto all = scrape_port(port);
        const auto found = all.find(series);
        value = found == all.end() ? 0 : found->second;
        return found != all.end() && ready(value);
      },
      series, std::chrono::seconds(20));
  return value;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(metrics)

BOOST_AUTO_TEST_CASE(the_hub_metrics_follow_the_exposition_format_and_say_what_was_reported) {
  const Parsed parsed = parse_strictly(render_hub_metrics(two_clusters_two_schedulers()));
  BOOST_TEST_REQUIRE(parsed.error.empty(), parsed.error);
  const auto& series = parsed.series;
  BOOST_TEST(series.at("unisched_cluster_nodes{cluster=\"gpu-east\"}") == 4);
  BOOST_TEST(series.at("unisched_cluster_healthy{cluster=\"gpu-east\"}") == 1);
  BOOST_TEST(series.at("unisched_cluster_staleness_seconds{cluster=\"gpu-east\"}") == 1.5);
  BOOST_TEST(series.at("unisched_cluster_updates_total{cluster=\"gpu-east\"}") == 12);
  BOOST_TEST(series.at("unisched_cluster_free_devices{cluster=\"gpu-east\",model=\"nvidia-t4\"}") ==
             3);
  BOOST_TEST(series.at("unisched_cluster_devices{cluster=\"gpu-east\",model=\"nvidia-t4\"}") == 8);
  BOOST_TEST(series.at(R"(unisched_cluster_resyncs_total{cluster="odd\"name\\with\nbreaks"})") ==
             2);
  BOOST_TEST(series.at("unisched_scheduler_decisions_total{scheduler=\"0\",outcome=\"placed\"}") ==
             5);
  BOOST_TEST(series.at("unisched_scheduler_commits_total{scheduler=\"0\",outcome=\"conflict\"}") ==
             1);
  BOOST_TEST(series.at("unisched_scheduler_queue_length{scheduler=\"0\"}") == 7);
  BOOST_TEST(
      series.at("unisched_scheduler_undecided_requests{scheduler=\"0\",reason=\"queued\"}") == 6);
  BOOST_TEST(series.at("unisched_scheduler_undecided_requests{scheduler=\"1\",reason=\"waiting "
                       "for quota\"}") == 0);
  BOOST_TEST(series.at("unisched_scheduler_oldest_undecided_seconds{scheduler=\"0\"}") == 2.5);
  check_histogram(series, "unisched_scheduler_decision_latency_seconds", "scheduler=\"0\"");
  check_histogram(series, "unisched_scheduler_decision_latency_seconds", "scheduler=\"1\"");
  BOOST_TEST(series.at("unisched_scheduler_decision_latency_seconds_bucket{scheduler=\"0\","
                       "le=\"0.001\"}") == 4);
  BOOST_TEST(series.at("unisched_scheduler_decision_latency_seconds_count{scheduler=\"0\"}") == 5);
  BOOST_TEST(series.at("unisched_scheduler_decision_latency_seconds_sum{scheduler=\"0\"}") == 12.5);
  check_histogram(series, "unisched_journal_fsync_duration_seconds", "");
}

BOOST_AUTO_TEST_CASE(grpc_calls_are_counted_by_service_method_and_status_code) {
  auto& stats = unisched::runtime::grpc_call_stats();
  const auto value = [](const std::string& series) {
    const Parsed parsed = parse_strictly(unisched::runtime::render_hub_metrics({}));
    BOOST_TEST_REQUIRE(parsed.error.empty(), parsed.error);
    const auto found = parsed.series.find(series);
    return found == parsed.series.end() ? 0.0 : found->second;
  };
  const std::string labels = R"(grpc_service="test.Metrics",grpc_method="Probe")";
  const double started = value("unisched_grpc_server_started_total{" + labels + "}");
  const double denied =
      value("unisched_grpc_server_handled_total{" + labels + ",grpc_code=\"UNAUTHENTICATED\"}");
  stats.started("/test.Metrics/Probe");
  stats.started("/test.Metrics/Probe");
  stats.handled("/test.Metrics/Probe", "UNAUTHENTICATED");
  BOOST_TEST(value("unisched_grpc_server_started_total{" + labels + "}") == started + 2);
  BOOST_TEST(value("unisched_grpc_server_handled_total{" + labels +
                   ",grpc_code=\"UNAUTHENTICATED\"}") == denied + 1);
  BOOST_TEST(value("unisched_grpc_server_in_flight{" + labels + "}") >= 1);
}

BOOST_AUTO_TEST_CASE(the_strict_parser_refuses_what_prometheus_refuses) {
  // So that the checks above can fail: each of these breaks one rule of the format.
  for (const std::string bad : {
           "unisched_x 1\n",  // a sample before its family
           "# HELP unisched_x_total x\n# TYPE unisched_x_total counter\n"
           "unisched_x_total{cluster=\"a\"b\"} 1\n",                          // an unescaped quote
           "# HELP unisched_x x\n# TYPE unisched_x counter\nunisched_x 1\n",  // no _total
           "# HELP unisched_x x\n# TYPE unisched_x gauge\nunisched_x one\n",
           "# HELP unisched_x x\n# TYPE unisched_x gauge\nunisched_x 1\nunisched_x 2\n",
           "# HELP unisched_x x\n# TYPE unisched_x gauge\nunisched_x 1",  // no final line feed
       }) {
    BOOST_TEST(!parse_strictly(bad).error.empty(), "accepted: " + bad);
  }
  const std::string good = "# HELP unisched_x x\n# TYPE unisched_x gauge\nunisched_x 1\n";
  BOOST_TEST(parse_strictly(good).error.empty());
}

/// `serve --metrics` on a free loopback port, scraped over HTTP: the cluster of an agent that
/// joins after the first scrape appears in a later one, with its nodes and free devices.
BOOST_AUTO_TEST_CASE(serve_exposes_the_clusters_that_join_at_its_metrics_port) {
  using unisched::testing::ActorHarness;
  unisched::testing::Hub hub(0, {"--metrics", "127.0.0.1:0", "--grpc", "127.0.0.1:0"});
  const int port = metrics_port(*hub.process);
  httplib::Client client("127.0.0.1", port);
  const auto scrape = [port] { return scrape_port(port); };
  const std::string nodes = "unisched_cluster_nodes{cluster=\"t4-useast\"}";
  BOOST_TEST(scrape().count(nodes) == 0);  // before its agent registers
  BOOST_TEST(scrape().at("unisched_metrics_sources_missing") == 0);
  unisched::testing::ChildProcess agent(
      {unisched::testing::kBinary, "agent", "--hub", hub.address, "--profile",
       unisched::testing::kProfiles + "t4-vm-useast.yaml"},
      hub.dir.path() + "/agent.log");
  std::map<std::string, double> series;
  ActorHarness::wait_until(
      [&] {
        series = scrape();
        return series.count(nodes) > 0 && series.at(nodes) > 0 &&
               series.at("unisched_cluster_healthy{cluster=\"t4-useast\"}") == 1;
      },
      "t4-useast in the metrics", std::chrono::seconds(20));
  bool free_devices = false;
  for (const auto& [key, value] : series) {
    free_devices |=
        key.rfind("unisched_cluster_free_devices{cluster=\"t4-useast\"", 0) == 0 && value > 0;
  }
  BOOST_TEST(free_devices);
  // An agent that speaks gRPC: its update stream is counted while it is open.
  const std::string grpc_address = unisched::testing::printed_grpc_address(*hub.process);
  unisched::testing::ChildProcess grpc_agent(
      {unisched::testing::kBinary, "agent", "--transport", "grpc", "--hub", grpc_address,
       "--profile", unisched::testing::kProfiles + "a100-nvlink-uswest.yaml"},
      hub.dir.path() + "/grpc-agent.log");
  const std::string stream =
      R"(unisched_grpc_server_in_flight{grpc_service="unisched.v1.ClusterMetadataService",)"
      R"(grpc_method="PushIncrementalUpdates"})";
  ActorHarness::wait_until(
      [&] {
        series = scrape();
        return series.count(stream) > 0 && series.at(stream) >= 1;
      },
      "the gRPC agent's open update stream in the metrics", std::chrono::seconds(20));
  BOOST_TEST(client.Get("/nothing-here")->status == 404);
  {  // Bytes that are not HTTP, and a request cut off midway: the server answers on.
    unisched::testing::RawConnection garbage(static_cast<uint16_t>(port));
    BOOST_TEST(garbage.send(std::string("\x16\x03\x01\x02\x00garbage\r\n\r\n", 16)));
    unisched::testing::RawConnection cut_off(static_cast<uint16_t>(port));
    BOOST_TEST(cut_off.send("GET /metr"));
  }
  BOOST_TEST(scrape().count(nodes) == 1);
}

/// The shipped Grafana dashboard asks only for metrics the hub exposes (a renamed metric would
/// leave a panel empty without a word).
BOOST_AUTO_TEST_CASE(the_grafana_dashboard_reads_only_metrics_the_hub_exposes) {
  const YAML::Node config_map =
      YAML::LoadFile(std::string(UNISCHED_SOURCE_DIR) + "/config/grafana/unisched-dashboard.yaml");
  const auto dashboard =
      unisched::testing::Json::parse(config_map["data"]["unisched.json"].as<std::string>());
  const Parsed parsed = parse_strictly(render_hub_metrics(two_clusters_two_schedulers()));
  BOOST_TEST_REQUIRE(parsed.error.empty(), parsed.error);
  std::set<std::string> exposed;
  for (const auto& [series, value] : parsed.series) {
    exposed.insert(series.substr(0, series.find('{')));
  }
  static const std::regex metric("unisched_[a-z_]+");
  int asked = 0;
  for (const auto& panel : dashboard.at("panels")) {
    for (const auto& target : panel.at("targets")) {
      const std::string expr = target.at("expr");
      for (std::sregex_iterator it(expr.begin(), expr.end(), metric), end; it != end; ++it) {
        ++asked;
        BOOST_TEST(exposed.count(it->str()) == 1,
                   panel.at("title").get<std::string>() + " asks for " + it->str());
      }
    }
  }
  BOOST_TEST(asked > 10);
}

/// The status page's data: clusters with GPU use by model, waiting requests apart, the recent
/// decisions newest first (at most as many as asked) with their reasons.
BOOST_AUTO_TEST_CASE(the_status_json_lists_clusters_waiting_requests_and_recent_decisions) {
  unisched::runtime::StatusInput input;
  input.hub = two_clusters_two_schedulers();
  for (int i = 0; i < 5; ++i) {
    auto* request = input.requests.add_requests();
    request->set_request_id("r" + std::to_string(i));
    request->set_accepted_unix_ms(1000 + i);
    request->set_phase(i == 2 ? unisched::v1::RequestStatus::PENDING
                              : unisched::v1::RequestStatus::UNSCHEDULABLE);
    request->mutable_decision()->add_reasons("gpu-east: resource-fit: 0 of 4 nodes fit");
  }
  for (const char* node : {"n1", "n1", "n2"}) {  // r4 placed 3 replicas on 2 nodes
    auto* replica = input.requests.mutable_requests(4)->mutable_decision()->add_replicas();
    replica->set_cluster("gpu-east");
    replica->set_node(node);
  }
  auto* quota = input.quotas.add_quotas();
  quota->mutable_quota()->set_name("team-a");
  (*quota->mutable_quota()->mutable_hard())["nvidia.com/gpu"] = 8000;
  (*quota->mutable_quota()->mutable_hard())["memory"] = int64_t{64} << 30;
  (*quota->mutable_used())["nvidia.com/gpu"] = 2500;
  const auto status =
      unisched::testing::Json::parse(unisched::runtime::render_status_json(input, 3));
  // Budgets as people write them, not the ledger's milli-units (issue 66, item 7).
  BOOST_TEST(status["quotas"][0]["quota"]["hard"]["nvidia.com/gpu"] == "8");
  BOOST_TEST(status["quotas"][0]["quota"]["hard"]["memory"] == "64Gi");
  BOOST_TEST(status["quotas"][0]["used"]["nvidia.com/gpu"] == "2500m");
  BOOST_TEST(status["clusters"].size() == 2u);
  BOOST_TEST(status["clusters"][0]["id"] == "gpu-east");
  BOOST_TEST(status["clusters"][0]["models"][0]["free_devices"] == 3);
  BOOST_TEST(status["schedulers"][0]["waiting"] == 7);
  BOOST_TEST(status["waiting"].size() == 1u);
  BOOST_TEST(status["waiting"][0]["id"] == "r2");
  BOOST_TEST(status["decisions"].size() == 3u);
  BOOST_TEST(status["decisions"][0]["id"] == "r4");
  BOOST_TEST(status["decisions"][2]["id"] == "r1");
  BOOST_TEST(status["decisions"][0]["phase"] == "UNSCHEDULABLE");
  BOOST_TEST(status["decisions"][0]["reasons"][0] == "gpu-east: resource-fit: 0 of 4 nodes fit");
  BOOST_TEST(status["decisions"][0]["placements"][0] == "gpu-east: 3 replicas on 2 nodes");
  BOOST_TEST(status["quotas"].is_array());
}

/// `shard --metrics` shows the clusters whose ClusterActors it hosts; `agent --metrics` its own
/// counters; neither serves the centre's status page.
BOOST_AUTO_TEST_CASE(shards_and_agents_serve_their_own_metrics) {
  using unisched::testing::ChildProcess;
  using unisched::testing::kBinary;
  unisched::testing::Hub hub(0, {"--grpc", "127.0.0.1:0"});
  ChildProcess shard(
      {kBinary, "shard", "--hub", hub.address, "--id", "s1", "--metrics", "127.0.0.1:0"},
      hub.dir.path() + "/shard.log");
  const int shard_port = metrics_port(shard);
  unisched::testing::ActorHarness::wait_until(
      [&] { return hub.process->output().find("s1") != std::string::npos; }, "s1 joined");
  ChildProcess agent({kBinary, "agent", "--hub", hub.address, "--profile",
                      unisched::testing::kProfiles + "t4-vm-useast.yaml", "--push-interval",
                      "100ms", "--metrics", "127.0.0.1:0"},
                     hub.dir.path() + "/agent.log");
  const int agent_port = metrics_port(agent);
  const std::string cluster = "{cluster=\"t4-useast\"}";
  BOOST_TEST(value_once(shard_port, "unisched_cluster_nodes" + cluster,
                        [](double nodes) { return nodes > 0; }) > 0);
  BOOST_TEST(value_once(agent_port, "unisched_agent_updates_total" + cluster,
                        [](double updates) { return updates >= 2; }) >= 2);
  BOOST_TEST(value_once(agent_port, "unisched_agent_online" + cluster,
                        [](double online) { return online == 1; }) == 1);
  BOOST_TEST(scrape_port(agent_port).at("unisched_metrics_sources_missing") == 0);
  httplib::Client client("127.0.0.1", agent_port);
  BOOST_TEST(client.Get("/")->status == 404);
  // An agent that speaks gRPC serves the same families.
  ChildProcess grpc_agent({kBinary, "agent", "--transport", "grpc", "--hub",
                           unisched::testing::printed_grpc_address(*hub.process), "--profile",
                           unisched::testing::kProfiles + "a100-nvlink-uswest.yaml",
                           "--push-interval", "100ms", "--metrics", "127.0.0.1:0"},
                          hub.dir.path() + "/grpc-agent.log");
  const int grpc_agent_port = metrics_port(grpc_agent);
  const std::string a100 = "{cluster=\"a100-uswest\"}";
  BOOST_TEST(value_once(grpc_agent_port, "unisched_agent_updates_total" + a100,
                        [](double updates) { return updates >= 1; }) >= 1);
  BOOST_TEST(value_once(grpc_agent_port, "unisched_agent_online" + a100,
                        [](double online) { return online == 1; }) == 1);
}

BOOST_AUTO_TEST_SUITE_END()
