// HubRequests: the hub's rules for requests without its actor: schedulers in turn, what each is
// deciding, decisions in the book, and no request dropped: what a stopped scheduler was deciding,
// and a request whose placement will never run, is decided again under a new attempt, and what
// the earlier attempt placed is released.
#include "runtime/hub_requests.hpp"

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "tests/test_files.hpp"

using unisched::runtime::HubCommands;
using unisched::runtime::HubRequests;
using unisched::runtime::RequestBook;
using unisched::testing::ScratchDirectory;
namespace v1 = unisched::v1;

namespace {

/// A book holding the pending requests `names`, and the work to schedule them.
struct Accepted {
  std::shared_ptr<RequestBook> book = std::make_shared<RequestBook>();
  std::vector<RequestBook::ToSchedule> work;

  explicit Accepted(const std::vector<std::string>& names, const std::string& journal = {}) {
    if (!journal.empty()) {
      book = std::make_shared<RequestBook>(journal);
      std::vector<std::string> warnings;
      BOOST_TEST_REQUIRE(book->recover(false, warnings).ok());
    }
    std::string text;
    for (const std::string& name : names) {
      text +=
          "---\napiVersion: scheduling.cluster.io/v1\nkind: SchedulingRequest\nmetadata:\n"
          "  name: " +
          name + "\nspec:\n  replicas: 1\n  resources:\n    cpu: \"1\"\n    memory: 1Gi\n";
    }
    v1::ManifestSubmission submission;
    submission.set_source("requests.yaml");
    submission.set_manifest(text);
    RequestBook::Declarations declared;
    book->submit(submission, work, declared);
  }
};

v1::SchedulingDecision placed(const std::string& id, uint32_t replacing = 0) {
  v1::SchedulingDecision decision;
  decision.set_request_id(id);
  decision.set_status(v1::SchedulingDecision::PLACED);
  decision.set_replacing(replacing);
  auto* replica = decision.add_replicas();
  replica->set_placement_id(id + "/0");
  replica->set_cluster("c1");
  replica->set_node("n1");
  return decision;
}

v1::RequestStatus::Phase phase(const HubRequests& requests, const std::string& id) {
  return requests.book().find(id)->phase();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(hub_requests)

BOOST_AUTO_TEST_CASE(requests_go_to_the_schedulers_in_turn_and_stay_pending_without_one) {
  struct Case {
    const char* what;
    std::vector<uint64_t> schedulers;
    std::vector<uint64_t> chosen;
  };
  const Case cases[] = {
      {"no scheduler: they wait", {}, {}},
      {"one", {7}, {7, 7, 7}},
      {"two in turn", {7, 9}, {7, 9, 7}},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.what) {
      Accepted accepted({"a", "b", "c"});
      HubRequests requests(accepted.book, c.schedulers);
      const HubCommands out = requests.schedule(std::move(accepted.work));
      std::vector<uint64_t> chosen;
      for (const auto& [scheduler, work] : out.submissions) {
        chosen.push_back(scheduler);
      }
      BOOST_TEST(chosen == c.chosen);
      BOOST_TEST(requests.in_flight() == c.chosen.size());
      BOOST_TEST(phase(requests, "a") == v1::RequestStatus::PENDING);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_decision_is_booked_and_answered) {
  Accepted accepted({"a", "b"});
  HubRequests requests(accepted.book, {7});
  requests.schedule(std::move(accepted.work));
  const HubCommands out = requests.decided(7, placed("a"));
  BOOST_TEST((out.answers == std::vector<std::string>{"a"}));
  BOOST_TEST(!out.journal_failed);
  BOOST_TEST(phase(requests, "a") == v1::RequestStatus::PLACED);
  BOOST_TEST(!requests.deciding("a"));
  BOOST_TEST(requests.deciding("b"));
}

BOOST_AUTO_TEST_CASE(a_scheduler_that_does_not_answer_takes_no_more_work_and_its_request_goes_on) {
  Accepted accepted({"a", "b"});
  HubRequests requests(accepted.book, {7, 9});
  requests.schedule(std::move(accepted.work));  // a to 7, b to 9
  const HubCommands out = requests.not_decided(7, "a", "request_receiver_down");
  BOOST_TEST(out.answers.empty());  // not decided: whoever waits, waits on
  BOOST_TEST(out.decided_again == 1u);
  BOOST_TEST_REQUIRE(out.given_up.size() == 1u);
  BOOST_TEST((out.given_up[0].ids == std::vector<std::string>{"a"}));
  BOOST_TEST_REQUIRE(out.submissions.size() == 1u);
  BOOST_TEST(out.submissions[0].first == 9u);
  BOOST_TEST(out.submissions[0].second.id == "a~1");
  BOOST_TEST(phase(requests, "a") == v1::RequestStatus::PENDING);
  BOOST_TEST(requests.deciding("a"));
  // Its stop, reported after: nothing more to do for a.
  BOOST_TEST(requests.scheduler_stopped(7).submissions.empty());
  // With no scheduler left, a request waits (it is decided after the next start).
  const HubCommands last = requests.not_decided(9, "a~1", "request_receiver_down");
  BOOST_TEST(last.submissions.empty());
  BOOST_TEST(phase(requests, "a") == v1::RequestStatus::PENDING);
  BOOST_TEST(requests.book().find("a")->attempt() == 2u);
}

BOOST_AUTO_TEST_CASE(what_a_stopped_scheduler_was_deciding_is_decided_again_by_the_others) {
  Accepted accepted({"a", "b", "c"});
  HubRequests requests(accepted.book, {7, 9});
  requests.schedule(std::move(accepted.work));  // a, c to 7; b to 9
  requests.decided(7, placed("a"));
  // a is placed, then a refused replica of it is placed again by 7.
  requests.changed(7, placed("a", 1));
  BOOST_TEST(requests.deciding("a"));
  const HubCommands out = requests.scheduler_stopped(7);
  BOOST_TEST(out.answers.empty());
  BOOST_TEST(out.decided_again == 2u);
  BOOST_TEST_REQUIRE(out.given_up.size() == 1u);
  BOOST_TEST((out.given_up[0].ids == std::vector<std::string>{"a", "c"}));
  std::vector<std::string> again;
  for (const auto& [scheduler, work] : out.submissions) {
    BOOST_TEST(scheduler == 9u);
    again.push_back(work.id);
  }
  BOOST_TEST((again == std::vector<std::string>{"a~1", "c~1"}));
  BOOST_TEST(phase(requests, "a") == v1::RequestStatus::PENDING);
  BOOST_TEST(phase(requests, "c") == v1::RequestStatus::PENDING);
  BOOST_TEST(phase(requests, "b") == v1::RequestStatus::PENDING);  // 9 decides it still
  // The new attempt's decision counts; a late one of the earlier attempt is released.
  BOOST_TEST((requests.decided(9, placed("a~1")).answers == std::vector<std::string>{"a"}));
  BOOST_TEST(phase(requests, "a") == v1::RequestStatus::PLACED);
  const HubCommands late = requests.decided(7, placed("c"));
  BOOST_TEST(late.answers.empty());
  BOOST_TEST_REQUIRE(late.given_up.size() == 1u);
  BOOST_TEST((late.given_up[0].ids == std::vector<std::string>{"c"}));
  BOOST_TEST(phase(requests, "c") == v1::RequestStatus::PENDING);
  // Later work goes to the scheduler left.
  Accepted more({"d"});
  HubRequests left(more.book, {7, 9});
  left.scheduler_stopped(7);
  const HubCommands next = left.schedule(std::move(more.work));
  BOOST_TEST_REQUIRE(next.submissions.size() == 1u);
  BOOST_TEST(next.submissions[0].first == 9u);
}

BOOST_AUTO_TEST_CASE(what_a_stopped_scheduler_placed_is_followed_by_the_hub) {
  Accepted accepted({"a"});
  HubRequests requests(accepted.book, {7});
  requests.schedule(std::move(accepted.work));
  requests.decided(7, placed("a"));
  BOOST_TEST(requests.reconciliation().followed_requests() == 0u);
  const HubCommands out = requests.scheduler_stopped(7);
  BOOST_TEST(out.given_up.empty());  // decided: nothing to decide again
  BOOST_TEST(requests.reconciliation().followed_requests() == 1u);
  // The cluster says it finished: nothing to follow.
  requests.finished("c1", {"a/0"});
  BOOST_TEST(requests.reconciliation().followed_requests() == 0u);
}

BOOST_AUTO_TEST_CASE(a_request_the_reconciliation_gives_up_is_decided_again) {
  Accepted accepted({"a"});
  HubRequests requests(accepted.book, {7});
  requests.schedule(std::move(accepted.work));
  requests.decided(7, placed("a"));
  const HubCommands out = requests.give_up({{"a", "never ran"}, {"unknown", "never ran"}});
  BOOST_TEST(out.answers.empty());
  BOOST_TEST_REQUIRE(out.given_up.size() == 1u);
  BOOST_TEST((out.given_up[0].ids == std::vector<std::string>{"a"}));
  BOOST_TEST_REQUIRE(out.submissions.size() == 1u);
  BOOST_TEST(out.submissions[0].second.id == "a~1");
  BOOST_TEST(phase(requests, "a") == v1::RequestStatus::PENDING);
  BOOST_TEST(requests.reconciliation().followed_requests() == 0u);
}

BOOST_AUTO_TEST_CASE(a_start_decides_again_what_was_undecided_once_the_clusters_are_back) {
  ScratchDirectory dir;
  const std::string journal = dir.path() + "/requests.journal";
  {
    Accepted accepted({"a", "b", "c"}, journal);
    HubRequests requests(accepted.book, {7});
    requests.schedule(std::move(accepted.work));
    requests.decided(7, placed("a"));  // on c1
  }
  const auto start = HubRequests::Clock::time_point{} + std::chrono::hours(1);
  const auto deadline = start + std::chrono::seconds(30);
  struct Case {
    const char* what;
    std::set<std::string> declared;
    std::vector<std::string> synced;  // clusters back in step, in turn
    bool past_deadline;
    bool scheduled;
  };
  const Case cases[] = {
      {"every cluster back", {"c2"}, {"c1", "c2"}, false, true},
      {"one still away", {"c2"}, {"c1"}, false, false},
      {"one away past the deadline", {"c2"}, {"c1"}, true, true},
      {"none back yet", {}, {}, false, false},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.what) {
      // Each case restarts from the journal as the stop left it (a start writes new attempts).
      const std::string copy = dir.path() + "/" + std::to_string(&c - cases) + ".journal";
      std::filesystem::copy_file(journal, copy);
      auto book = std::make_shared<RequestBook>(copy);
      std::vector<std::string> warnings;
      BOOST_TEST_REQUIRE(book->recover(false, warnings).ok());
      HubRequests restarted(book, {9});
      const HubCommands out = restarted.start(c.declared, deadline);
      BOOST_TEST(out.decided_again == 2u);
      BOOST_TEST_REQUIRE(out.given_up.size() == 1u);
      BOOST_TEST((out.given_up[0].ids == std::vector<std::string>{"b", "c"}));
      BOOST_TEST(out.submissions.empty());  // not before the clusters are back
      BOOST_TEST(restarted.reconciliation().followed_requests() == 1u);  // a, placed before
      // Accepted meanwhile: it waits behind them.
      std::vector<RequestBook::ToSchedule> late(1);
      late[0].id = "late";
      BOOST_TEST(restarted.schedule(std::move(late)).submissions.empty());
      HubCommands later;
      for (const std::string& cluster : c.synced) {
        later.append(restarted.cluster_synced(cluster));
      }
      later.append(restarted.tick(c.past_deadline ? deadline : start));
      std::vector<std::string> scheduled;
      for (const auto& [scheduler, work] : later.submissions) {
        BOOST_TEST(scheduler == 9u);
        scheduled.push_back(work.id);
      }
      const std::vector<std::string> expected =
          c.scheduled ? std::vector<std::string>{"b~1", "c~1", "late"} : std::vector<std::string>{};
      BOOST_TEST(scheduled == expected);
      BOOST_TEST(restarted.restart_gate().closed() == !c.scheduled);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
