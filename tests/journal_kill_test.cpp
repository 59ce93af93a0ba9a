// The journal's promise under `kill -9`: a hub with --journal is killed in the middle of a burst
// of submissions, 50 times in a row, and after each restart every request it acknowledged is
// there (never missing, never LOST: one still waiting is decided again under its next attempt),
// as is the cluster profile applied before the first kill.
#include <caf/event_based_actor.hpp>
#include <caf/scoped_actor.hpp>

#include <boost/test/unit_test.hpp>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "runtime/network.hpp"
#include "tests/hub_process.hpp"

using namespace unisched;
using namespace unisched::atoms;
using unisched::testing::ActorHarness;
using unisched::testing::ChildProcess;
using unisched::testing::kBinary;
using unisched::testing::ScratchDirectory;

namespace {

constexpr int kKills = 50;
constexpr int kBurst = 60;  // single-request submissions sent at once, per life of the hub

/// What the hub acknowledged, as its replies arrive on the harness's threads.
struct Acknowledged {
  std::mutex guard;
  std::set<std::string> ids;
};

std::string request_yaml(const std::string& name) {
  return "apiVersion: scheduling.cluster.io/v1\nkind: SchedulingRequest\nmetadata:\n  name: " +
         name + "\nspec:\n  replicas: 1\n  resources:\n    cpu: \"1\"\n    memory: 1Gi\n";
}

/// Sends one submission per name at once and records what each reply accepted.
caf::behavior submitter(caf::event_based_actor* self, runtime::HubActor hub,
                        std::vector<std::string> names, std::shared_ptr<Acknowledged> acked) {
  for (const std::string& name : names) {
    v1::ManifestSubmission submission;
    submission.set_source(name + ".yaml");
    submission.set_manifest(request_yaml(name));
    self->request(hub, std::chrono::seconds(10), std::move(submission))
        .then(
            [=](v1::SubmissionReply& reply) {
              const std::lock_guard<std::mutex> lock(acked->guard);
              for (const auto& status : reply.accepted()) {
                acked->ids.insert(status.request_id());
              }
            },
            [](caf::error&) {});  // the hub died first: not acknowledged
  }
  return {[](int) {}};
}

struct JournalledHub {
  ScratchDirectory& dir;
  std::unique_ptr<ChildProcess> process;
  std::optional<runtime::HubActor> actor;

  void start(ActorHarness& harness, int life) {
    process = std::make_unique<ChildProcess>(
        std::vector<std::string>{kBinary, "serve", "--listen", "127.0.0.1:0", "--journal",
                                 dir.path() + "/requests.journal"},
        dir.path() + "/hub-" + std::to_string(life) + ".log");
    const std::string address = unisched::testing::wait_for_listening(*process, "the hub");
    std::string error;
    const auto endpoint = runtime::parse_endpoint(address, error);
    actor = runtime::connect(*harness.system, *endpoint, {}, error);
    BOOST_TEST_REQUIRE(actor.has_value(), error);
  }

  v1::RequestList requests(ActorHarness& harness) {
    return harness.ask<v1::RequestList>(*actor, requests_atom_v);
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(journal_kill)

BOOST_AUTO_TEST_CASE(every_acknowledged_request_survives_50_kills_in_a_burst) {
  ScratchDirectory dir;
  ActorHarness harness(ActorHarness::Networked{});
  JournalledHub hub{dir, nullptr, std::nullopt};
  hub.start(harness, 0);
  v1::ManifestSubmission profile;
  profile.set_source("profile.yaml");
  profile.set_manifest(
      unisched::testing::read_file(unisched::testing::kProfiles + "a100-nvlink-uswest.yaml"));
  BOOST_TEST_REQUIRE(harness.ask<v1::SubmissionReply>(*hub.actor, profile).profiles() == 1);
  auto acked = std::make_shared<Acknowledged>();
  std::mt19937 random(20);
  std::uniform_int_distribution<int> kill_after_us(0, 20'000);
  int cut_short = 0;  // lives in which the kill came before every submission was answered
  for (int life = 1; life <= kKills; ++life) {
    std::vector<std::string> names;
    for (int i = 0; i < kBurst; ++i) {
      names.push_back("l" + std::to_string(life) + "-r" + std::to_string(i));
    }
    const size_t before = [&] {
      const std::lock_guard<std::mutex> lock(acked->guard);
      return acked->ids.size();
    }();
    const caf::actor burst = harness.system->spawn(submitter, *hub.actor, names, acked);
    std::this_thread::sleep_for(std::chrono::microseconds(kill_after_us(random)));
    BOOST_TEST_REQUIRE(hub.process->stop(SIGKILL) == -SIGKILL);
    caf::anon_send_exit(burst, caf::exit_reason::user_shutdown);
    hub.start(harness, life);
    const v1::RequestList known = hub.requests(harness);
    std::set<std::string> found;
    for (const auto& status : known.requests()) {
      found.insert(status.request_id());
      BOOST_TEST(status.phase() != v1::RequestStatus::LOST, status.ShortDebugString());
    }
    const std::lock_guard<std::mutex> lock(acked->guard);
    cut_short += acked->ids.size() - before < kBurst ? 1 : 0;
    for (const std::string& id : acked->ids) {
      BOOST_TEST_REQUIRE(found.count(id) == 1u,
                         "life " << life << ": " << id << " was acknowledged, then lost");
    }
  }
  // The applied profile came back each time, and the kills did land mid-burst.
  bool declared = false;
  const v1::ClusterList clusters = harness.ask<v1::ClusterList>(*hub.actor, clusters_atom_v);
  for (const auto& cluster : clusters.clusters()) {
    declared = declared || cluster.cluster_id() == "a100-uswest";
  }
  BOOST_TEST(declared);
  BOOST_TEST(cut_short > kKills / 4, cut_short << " of " << kKills << " kills cut a burst short");
  BOOST_TEST_MESSAGE(acked->ids.size() << " acknowledged requests, all found after " << kKills
                                       << " kills; " << cut_short << " kills cut a burst short");
  BOOST_TEST(hub.process->stop() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
