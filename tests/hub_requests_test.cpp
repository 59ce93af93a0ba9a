// HubRequests: the hub's rules for requests without its actor: schedulers in turn, what each is
// deciding, decisions in the book, and what a stopped scheduler leaves LOST and released.
#include "runtime/hub_requests.hpp"

#include <boost/test/unit_test.hpp>

#include <memory>
#include <string>
#include <vector>

using unisched::runtime::HubCommands;
using unisched::runtime::HubRequests;
using unisched::runtime::RequestBook;
namespace v1 = unisched::v1;

namespace {

/// A book holding the pending requests `names`, and the work to schedule them.
struct Accepted {
  std::shared_ptr<RequestBook> book = std::make_shared<RequestBook>();
  std::vector<RequestBook::ToSchedule> work;

  explicit Accepted(const std::vector<std::string>& names) {
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
  // A scheduler that could not answer: unschedulable, with why.
  requests.not_decided(7, "b", "timeout");
  BOOST_TEST(phase(requests, "b") == v1::RequestStatus::UNSCHEDULABLE);
  BOOST_TEST(requests.in_flight() == 0u);
}

BOOST_AUTO_TEST_CASE(a_stopped_scheduler_leaves_what_it_decides_lost_and_released) {
  Accepted accepted({"a", "b", "c"});
  HubRequests requests(accepted.book, {7, 9});
  requests.schedule(std::move(accepted.work));  // a, c to 7; b to 9
  requests.decided(7, placed("a"));
  // a is placed, then a refused replica of it is placed again by 7.
  requests.changed(7, placed("a", 1));
  BOOST_TEST(requests.deciding("a"));
  const HubCommands out = requests.scheduler_stopped(7);
  std::vector<std::string> answered = out.answers;
  std::sort(answered.begin(), answered.end());
  BOOST_TEST((answered == std::vector<std::string>{"a", "c"}));
  BOOST_TEST_REQUIRE(out.given_up.size() == 1u);
  BOOST_TEST(out.given_up[0].ids.size() == 2u);
  BOOST_TEST(out.given_up[0].reason == "their scheduler stopped");
  BOOST_TEST(phase(requests, "a") == v1::RequestStatus::LOST);
  BOOST_TEST(phase(requests, "c") == v1::RequestStatus::LOST);
  BOOST_TEST(phase(requests, "b") == v1::RequestStatus::PENDING);  // 9 decides it still
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
  BOOST_TEST(out.given_up.empty());  // decided: not lost
  BOOST_TEST(requests.reconciliation().followed_requests() == 1u);
  // The cluster says it finished: nothing to follow.
  requests.finished("c1", {"a/0"});
  BOOST_TEST(requests.reconciliation().followed_requests() == 0u);
}

BOOST_AUTO_TEST_CASE(requests_the_reconciliation_gives_up_are_lost_once) {
  Accepted accepted({"a"});
  HubRequests requests(accepted.book, {7});
  requests.schedule(std::move(accepted.work));
  requests.decided(7, placed("a"));
  const HubCommands out = requests.give_up({{"a", "never ran"}, {"unknown", "never ran"}});
  BOOST_TEST((out.answers == std::vector<std::string>{"a"}));
  BOOST_TEST_REQUIRE(out.given_up.size() == 1u);
  BOOST_TEST((out.given_up[0].ids == std::vector<std::string>{"a"}));
  BOOST_TEST(phase(requests, "a") == v1::RequestStatus::LOST);
  BOOST_TEST(requests.give_up({{"a", "never ran"}}).given_up.empty());  // lost already
}

BOOST_AUTO_TEST_SUITE_END()
