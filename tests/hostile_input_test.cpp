// Hostile names at a live hub: cluster ids that are not DNS-1123 labels are refused where they
// enter over CAF, and nothing a client sends can forge a line of the hub's log or a row of a
// table (issue 14, items 8 and 9).
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <thread>

#include <caf/event_based_actor.hpp>
#include <caf/scoped_actor.hpp>

#include "runtime/network.hpp"
#include "tests/hub_process.hpp"

using namespace unisched::testing;
using namespace unisched::atoms;

BOOST_AUTO_TEST_SUITE(hostile_input)

namespace {

using unisched::testing::lines_of;

bool some_line_starts_with(const std::string& log, const std::string& prefix) {
  for (const std::string& line : lines_of(log)) {
    if (line.rfind(prefix, 0) == 0) {
      return true;
    }
  }
  return false;
}

const std::string kForged = "FORGED [unisched] [error] the hub is compromised";

}  // namespace

BOOST_AUTO_TEST_CASE(cluster_ids_that_are_not_labels_are_refused_over_caf) {
  Hub hub;
  caf::actor_system_config config;
  auto system = unisched::runtime::make_networked_system(config, {});
  BOOST_TEST_REQUIRE(bool(system));
  std::string error;
  const auto endpoint = unisched::runtime::parse_endpoint(hub.address, error);
  const auto hub_actor = unisched::runtime::connect(*system, *endpoint, {}, error);
  BOOST_TEST_REQUIRE(hub_actor.has_value(), error);
  // A stand-in agent: the hub must refuse the registration before anyone talks to it.
  const auto agent = caf::actor_cast<unisched::actors::AgentActor>(
      system->spawn([]() -> caf::behavior { return {[](int) {}}; }));
  const std::vector<std::string> hostile = {
      "a\"b",  "evil\n" + kForged,       std::string("nul\0id", 6), "../../etc",
      "Upper", std::string(1 << 20, 'x')};
  caf::scoped_actor self{*system};
  for (const std::string& id : hostile) {
    unisched::v1::ClusterRegistration registration;
    registration.mutable_identity()->set_cluster_id(id);
    std::string refusal;
    self->request(*hub_actor, std::chrono::seconds(10), register_atom_v, registration, agent)
        .receive([&](unisched::actors::ClusterActor&) { refusal = "accepted"; },
                 [&](caf::error& failure) { refusal = system->render(failure); });
    BOOST_TEST(refusal.find("identity.cluster_id: Invalid value") != std::string::npos,
               id.substr(0, 20) << ": " << refusal.substr(0, 200));
    BOOST_TEST(refusal.size() < 600u);
  }
  // Nothing registered, and the list is still valid JSON.
  const Json clusters = hub.clusters();
  BOOST_TEST(clusters.is_array());
  BOOST_TEST(clusters.size() == 0u);
  caf::anon_send_exit(agent, caf::exit_reason::user_shutdown);
  BOOST_TEST(hub.process->stop() == 0);
  BOOST_TEST(!some_line_starts_with(hub.process->output(), kForged), hub.process->output());
  BOOST_TEST(hub.process->output().find("evil\\nFORGED") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_file_name_cannot_forge_a_line_of_the_hub_log) {
  Hub hub;
  const std::string file = hub.dir.write(
      "requests\n" + kForged + ".yaml",
      "apiVersion: scheduling.cluster.io/v1\nkind: SchedulingRequest\nmetadata:\n  name: web\n"
      "spec:\n  replicas: 1\n  resources:\n    cpu: \"1\"\n    memory: 1Gi\n");
  const auto [status, output] = hub.client("submit -f '" + file + "'");
  BOOST_TEST(status == 0, output);
  ActorHarness::wait_until(
      [&] { return hub.process->output().find("requests accepted") != std::string::npos; },
      "the submission logged");
  BOOST_TEST(hub.process->stop() == 0);
  BOOST_TEST(!some_line_starts_with(hub.process->output(), kForged), hub.process->output());
  BOOST_TEST(hub.process->output().find("requests\\nFORGED") != std::string::npos,
             hub.process->output());
}

BOOST_AUTO_TEST_CASE(a_manifest_of_100000_labels_is_accepted_while_the_hub_answers) {
  // Written back as JSON with a key lookup per label, 100,000 labels cost the hub 20 s of CPU
  // and `get clusters` timed out meanwhile (issue 66).
  Hub hub;
  std::string manifest =
      "apiVersion: scheduling.cluster.io/v1\nkind: SchedulingRequest\nmetadata:\n"
      "  name: labelled\n  labels:\n";
  for (int i = 0; i < 100'000; ++i) {
    manifest += "    label-" + std::to_string(i) + ": v\n";
  }
  manifest += "spec:\n  replicas: 1\n  resources:\n    cpu: \"1\"\n";
  const std::string file = hub.dir.write("labels.yaml", manifest);
  std::pair<int, std::string> submitted;
  std::atomic<bool> done{false};
  std::thread submit([&] {
    submitted = hub.client("submit -f " + file);
    done = true;
  });
  int answered = 0;
  do {
    const auto [status, output] = hub.client("get clusters");
    BOOST_TEST(status == 0, output);
    ++answered;
  } while (!done && answered < 100);
  submit.join();
  BOOST_TEST(submitted.first == 0, submitted.second);
  BOOST_TEST(submitted.second.find("schedulingrequest/labelled created") != std::string::npos,
             submitted.second);
}

BOOST_AUTO_TEST_CASE(validate_escapes_names_and_keeps_field_and_reason) {
  ScratchDirectory dir;
  const std::string file =
      dir.write("names.yaml",
                "apiVersion: scheduling.cluster.io/v1\nkind: SchedulingRequest\nmetadata:\n"
                "  name: \"bad\\n" +
                    kForged +
                    "\"\nspec:\n  replicas: 1\n  resources:\n    cpu: \"1\"\n"
                    "    memory: 1Gi\n---\n"
                    "apiVersion: scheduling.cluster.io/v1\nkind: SchedulingRequest\nmetadata:\n"
                    "  name: \"cut\\0here\"\nspec:\n  replicas: 1\n  resources:\n    cpu: \"1\"\n"
                    "    memory: 1Gi\n");
  const std::string out = dir.path() + "/out";
  const int status = std::system((kBinary + " validate -f " + file + " >" + out + " 2>&1").c_str());
  BOOST_TEST(WEXITSTATUS(status) == 1);
  const std::string output = read_file(out);
  BOOST_TEST(!some_line_starts_with(output, kForged), output);
  BOOST_TEST(output.find("(SchedulingRequest/bad\\nFORGED") != std::string::npos, output);
  // A NUL no longer cuts the line: the field and the reason follow the name.
  BOOST_TEST(output.find("(SchedulingRequest/cut\\x00here): metadata.name: Invalid value: "
                         "\"cut\\x00here\": ") != std::string::npos,
             output);
}

BOOST_AUTO_TEST_CASE(an_agent_refuses_a_cluster_flag_that_is_not_a_label) {
  ScratchDirectory dir;
  const std::string out = dir.path() + "/out";
  const int status = std::system((kBinary + " agent --hub 127.0.0.1:1 --profile " + kProfiles +
                                  "t4-vm-useast.yaml --cluster '../../etc' >" + out + " 2>&1")
                                     .c_str());
  BOOST_TEST(WEXITSTATUS(status) == 2);
  BOOST_TEST(read_file(out).find("error: --cluster \"../../etc\": ") != std::string::npos,
             read_file(out));
}

BOOST_AUTO_TEST_SUITE_END()
