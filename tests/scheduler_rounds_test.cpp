// CommitRound and SchedulerRounds: the commits of a decision in flight, what each answer does to
// the round, what a closing round keeps, and the nodes the commits in flight touch.
#include "cores/scheduler_rounds.hpp"

#include <boost/test/unit_test.hpp>

#include <memory>
#include <string>
#include <vector>

using unisched::actors::CommitResult;
using unisched::actors::CommitRound;
using unisched::actors::RequestDecision;
using unisched::actors::SchedulerCommands;
using unisched::actors::SchedulerRounds;
using unisched::actors::SchedulerViews;
using unisched::actors::SchedulerWork;

namespace {

RequestDecision::Replica replica(const std::string& id, const std::string& cluster) {
  return RequestDecision::Replica{id, cluster, cluster + "1", {}, {}};
}

/// A round of work "w" committing w/0 to a and w/1 to b, both outstanding; with `quota`, each
/// takes one cpu.
std::unique_ptr<CommitRound> round_of_two(bool gang = false, bool quota = false) {
  auto round = std::make_unique<CommitRound>();
  round->id = 1;
  round->work = std::make_unique<SchedulerWork>();
  round->work->id = "w";
  round->work->spec.distribution.gang = gang;
  round->work->next_replica = 2;
  for (const auto& [id, cluster] : {std::pair{"w/0", "a"}, std::pair{"w/1", "b"}}) {
    round->replicas[cluster].push_back(replica(id, cluster));
    round->replica_numbers[cluster].push_back(id[2] - '0');
    round->outstanding.insert(cluster);
    if (quota) {
      round->quota[id].amounts = {{"cpu", 1000}};
    }
  }
  return round;
}

std::vector<std::string> ids_of(const std::vector<RequestDecision::Replica>& replicas) {
  std::vector<std::string> ids;
  for (const auto& kept : replicas) {
    ids.push_back(kept.placement_id);
  }
  return ids;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(scheduler_rounds)

BOOST_AUTO_TEST_CASE(each_answer_counts_the_cluster_accepted_or_failed) {
  struct Case {
    const char* what;
    CommitResult result;
    bool accepted;
    size_t releases;          ///< a commit without an answer may have reserved
    bool numbers_free_again;  ///< nothing was reserved under them
    const char* why;
  };
  const Case cases[] = {
      {"accepted", CommitResult::Accepted, true, 0, false, ""},
      {"conflict", CommitResult::Conflict, false, 0, true, "conflict: node moved"},
      {"refused", CommitResult::Refused, false, 0, true, "node moved"},
      {"no answer", CommitResult::TimedOut, false, 1, false, "no answer in time: node moved"},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.what) {
      auto round = round_of_two();
      SchedulerCommands out;
      round->record("a", c.result, "node moved", out);
      BOOST_TEST((round->accepted == std::vector<std::string>(c.accepted, "a")));
      BOOST_TEST(round->failed.count("a") == (c.accepted ? 0u : 1u));
      BOOST_TEST(out.releases.size() == c.releases);
      BOOST_TEST(round->work->free_replicas.count(0) == (c.numbers_free_again ? 1u : 0u));
      if (!c.accepted) {
        BOOST_TEST_REQUIRE(round->failures.size() == 1u);
        BOOST_TEST(round->failures[0].reason == c.why);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_closing_round_keeps_what_its_rule_allows) {
  struct Case {
    const char* what;
    bool gang;
    bool quota_failed;
    bool all_or_nothing;
    std::vector<std::string> placed;    ///< the work's replicas afterwards
    std::vector<std::string> not_kept;  ///< released, or never reserved
    size_t releases;                    ///< orders to clusters that accepted
    std::vector<std::string> quota_given_back;
  };
  const Case cases[] = {
      {"one of two failed: the other is kept", false, false, false, {"w/0"}, {"w/1"}, 0, {"w/1"}},
      {"a gang keeps nothing", true, false, true, {}, {"w/0", "w/1"}, 1, {"w/0", "w/1"}},
      {"nothing is kept without quota", false, true, true, {}, {"w/0", "w/1"}, 1, {"w/0", "w/1"}},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.what) {
      auto round = round_of_two(c.gang, true);
      SchedulerCommands answers;
      round->record("a", CommitResult::Accepted, "", answers);
      round->record("b", CommitResult::Refused, "no room", answers);
      if (c.quota_failed) {
        round->failed.insert("quota");
      }
      BOOST_TEST(round->all_or_nothing() == c.all_or_nothing);
      SchedulerCommands out;
      round->settle_quota(round->all_or_nothing(), out);
      BOOST_TEST(ids_of(round->keep_accepted(round->all_or_nothing(), out)) == c.not_kept);
      BOOST_TEST(ids_of(round->work->placed) == c.placed);
      BOOST_TEST(round->work->quota_held.size() == c.placed.size());
      BOOST_TEST(out.releases.size() == c.releases);
      BOOST_TEST(out.quota_releases == c.quota_given_back);
    }
  }
}

BOOST_AUTO_TEST_CASE(replicas_whose_cluster_actor_went_away_count_as_failed_and_are_released) {
  SchedulerViews views;
  for (const char* cluster : {"a", "b", "c"}) {
    views.add({cluster, "r1", "r1-a", unisched::model::MachineType::VirtualMachine, true});
  }
  auto round = round_of_two();
  round->incarnations = {{"a", 0}, {"b", 0}};
  round->work->placed.push_back(replica("w/9", "c"));  // kept by an earlier round
  round->work->placed_incarnations["w/9"] = 0;
  SchedulerCommands answers;
  round->record("a", CommitResult::Accepted, "", answers);
  round->record("b", CommitResult::Accepted, "", answers);
  views.lose("a");
  views.lose("c");
  SchedulerCommands out;
  round->fail_lost_cluster_actors(views, out);
  BOOST_TEST((round->accepted == std::vector<std::string>{"b"}));
  BOOST_TEST((round->failed == std::set<std::string>{"a", "c"}));
  BOOST_TEST(round->work->placed.empty());
  BOOST_TEST_REQUIRE(out.releases.size() == 2u);
  BOOST_TEST(out.releases[0].cluster_id == "a");
  BOOST_TEST(out.releases[1].placement_ids.at(0) == "w/9");
}

BOOST_AUTO_TEST_CASE(a_node_stays_busy_while_any_commit_in_flight_touches_it) {
  SchedulerRounds rounds;
  auto work = [](const char* id) {
    auto made = std::make_unique<SchedulerWork>();
    made->id = id;
    return made;
  };
  CommitRound& first = rounds.open(work("x"));
  CommitRound& second = rounds.open(work("y"));
  BOOST_TEST(second.id == first.id + 1);
  rounds.mark_busy(first, {"a", "n1"});
  rounds.mark_busy(first, {"b", "n2"});
  rounds.mark_busy(second, {"a", "n1"});
  BOOST_TEST(rounds.busy_nodes().size() == 2u);
  const std::string a = "a";
  rounds.free_nodes(first, &a);  // a answered the first round
  BOOST_TEST(rounds.busy_nodes().at({"a", "n1"}) == 1u);
  BOOST_TEST(rounds.deciding("y"));
  BOOST_TEST(rounds.end(second)->id == "y");
  BOOST_TEST(!rounds.deciding("y"));
  BOOST_TEST(rounds.busy_nodes().count({"a", "n1"}) == 0u);
  BOOST_TEST(rounds.busy_nodes().count({"b", "n2"}) == 1u);
  BOOST_TEST(rounds.find(first.id) == &first);
  rounds.end(first);
  BOOST_TEST(rounds.empty());
  BOOST_TEST(rounds.busy_nodes().empty());
}

BOOST_AUTO_TEST_SUITE_END()
