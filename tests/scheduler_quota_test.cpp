// SchedulerQuota: a commit round's take (from a lease, or asked of the ledger), what each answer
// of the ledger does to the round, and work parked until the ledger admits it.
#include "cores/scheduler_quota.hpp"

#include <boost/test/unit_test.hpp>
#include <memory>
#include <string>
#include <vector>

namespace actors = unisched::actors;
using actors::CommitRound;
using actors::QuotaResult;
using actors::SchedulerCommands;
using actors::SchedulerQuota;
using actors::SchedulerWork;

namespace {

std::unique_ptr<SchedulerWork> work(const std::string& id) {
  auto out = std::make_unique<SchedulerWork>();
  out->id = id;
  out->request_id = id;
  out->spec.queue = "team";
  return out;
}

/// A round of work `id` taking a CPU of queue "team"; its commits held when `held`.
CommitRound round_of(const std::string& id, bool held = false) {
  CommitRound round;
  round.id = 7;
  round.work = work(id);
  round.quota[id + "/0"].amounts = {{"cpu", 1000}};
  if (held) {
    round.held_commits.emplace_back();
  }
  return round;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(scheduler_quota)

BOOST_AUTO_TEST_CASE(a_take_goes_to_the_lease_when_it_covers_it_else_to_the_ledger) {
  SchedulerQuota quota;
  CommitRound asked = round_of("a");
  SchedulerCommands out;
  BOOST_TEST(!quota.start_take(asked, out));  // the commits go with the take
  BOOST_TEST(asked.quota_pending);
  BOOST_TEST_REQUIRE(out.rounds.size() == 1u);
  BOOST_TEST(out.rounds[0].quota_take.has_value());
  quota.grant_lease("team", {"lease#1", {{"cpu", 1500}}});
  CommitRound leased = round_of("b");
  SchedulerCommands from_lease;
  BOOST_TEST(!quota.start_take(leased, from_lease));
  BOOST_TEST(leased.quota_taken);
  BOOST_TEST(!leased.quota_pending);
  BOOST_TEST_REQUIRE(from_lease.quota_lease_uses.size() == 1u);
  BOOST_TEST(from_lease.quota_lease_uses[0].lease_id == "lease#1");
  BOOST_TEST(quota.lease_takes() == 1u);
  // 500m left does not cover the next: the lease is given back and the ledger asked.
  CommitRound beyond = round_of("c");
  SchedulerCommands spent;
  BOOST_TEST(!quota.start_take(beyond, spent));
  BOOST_TEST((spent.quota_releases == std::vector<std::string>{"lease#1"}));
  BOOST_TEST(beyond.quota_pending);
}

BOOST_AUTO_TEST_CASE(a_queue_whose_last_take_waited_holds_its_commits_for_the_answer) {
  SchedulerQuota quota;
  CommitRound first = round_of("a");
  SchedulerCommands out;
  quota.start_take(first, out);
  quota.on_answer(&first, QuotaResult::Queued, "over budget", out);  // the queue is tight now
  CommitRound next = round_of("b");
  BOOST_TEST(quota.start_take(next, out));
  CommitRound admitted = round_of("c");
  admitted.work->admitted = true;  // holds its budget already: no reason to wait
  BOOST_TEST(!quota.start_take(admitted, out));
}

BOOST_AUTO_TEST_CASE(each_answer_of_the_ledger_moves_the_round_on) {
  using Next = SchedulerQuota::Next;
  const struct {
    QuotaResult result;
    bool held;
    Next next;
    bool failed;    // the round failed its "quota" step
    bool released;  // what it may have taken is given back
  } table[] = {
      {QuotaResult::Taken, true, Next::SendCommits, false, false},
      {QuotaResult::Taken, false, Next::CloseIfDone, false, false},
      {QuotaResult::Queued, true, Next::Park, false, false},
      {QuotaResult::Queued, false, Next::CloseIfDone, false, false},
      {QuotaResult::Refused, false, Next::CloseIfDone, true, false},
      {QuotaResult::TimedOut, true, Next::CloseIfDone, true, true},
  };
  for (const auto& row : table) {
    SchedulerQuota quota;
    CommitRound round = round_of("r", row.held);
    SchedulerCommands out;
    quota.start_take(round, out);
    SchedulerCommands after;
    const Next next = quota.on_answer(&round, row.result, "why", after);
    const int line = static_cast<int>(&row - table);
    BOOST_TEST((next == row.next), "row " << line);
    BOOST_TEST(!round.quota_pending, "row " << line);
    BOOST_TEST(round.failed.count("quota") == (row.failed ? 1u : 0u), "row " << line);
    BOOST_TEST(after.quota_releases.size() == (row.released ? 1u : 0u), "row " << line);
    BOOST_TEST((quota.on_answer(&round, row.result, "again", after) == Next::Ignore),
               "row " << line << ": one answer per take");
  }
  SchedulerQuota quota;
  SchedulerCommands out;
  BOOST_TEST((quota.on_answer(nullptr, QuotaResult::Taken, "", out) == Next::Ignore));
  CommitRound queued = round_of("q");
  quota.start_take(queued, out);
  quota.on_answer(&queued, QuotaResult::Queued, "over budget", out);
  BOOST_TEST(queued.quota_queued.value_or("") == "over budget");
}

BOOST_AUTO_TEST_CASE(parked_work_comes_back_once_admitted_even_when_admitted_first) {
  SchedulerQuota quota;
  SchedulerCommands out;
  BOOST_TEST(!quota.park(work("a")));
  BOOST_TEST(quota.parked() == 1u);
  const auto admitted = quota.admit("a", false, out);
  BOOST_TEST_REQUIRE(bool(admitted));
  BOOST_TEST(admitted->admitted);
  BOOST_TEST(admitted->quota_waits == 1u);
  BOOST_TEST(quota.parked() == 0u);
  // Admitted while its round is still open: parked, it comes straight back.
  BOOST_TEST(!quota.admit("b", true, out));
  const auto early = quota.park(work("b"));
  BOOST_TEST_REQUIRE(bool(early));
  BOOST_TEST(early->admitted);
  // Nothing here waits for it: the ledger gets its hold back.
  BOOST_TEST(!quota.admit("c", false, out));
  BOOST_TEST((out.quota_withdrawals == std::vector<std::string>{"c"}));
  BOOST_TEST(quota.queued() == 2u);
}

BOOST_AUTO_TEST_SUITE_END()
