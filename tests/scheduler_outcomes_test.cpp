// SchedulerOutcomes: what a finished piece of a scheduler's work comes to (its decision
// answered, counted and tracked), and a refused placement put back in line to place again.
#include "cores/scheduler_outcomes.hpp"

#include <boost/test/unit_test.hpp>
#include <memory>
#include <string>
#include <vector>

using unisched::actors::SchedulerCommands;
using unisched::actors::SchedulerCounts;
using unisched::actors::SchedulerOutcomes;
using unisched::actors::SchedulerRounds;
using unisched::actors::SchedulerWork;
using Decision = unisched::actors::RequestDecision;

namespace {

/// Outcomes whose requeued work is kept in `requeued`.
struct Bench {
  unisched::policy::Policy policy;
  SchedulerRounds rounds;
  std::vector<std::unique_ptr<SchedulerWork>> requeued;
  SchedulerOutcomes outcomes{
      policy, rounds, 100, false,
      [this](std::unique_ptr<SchedulerWork> work, SchedulerOutcomes::Clock::time_point) {
        requeued.push_back(std::move(work));
        return SchedulerCommands{};
      }};
  SchedulerOutcomes::Clock::time_point now = SchedulerOutcomes::Clock::now();
};

/// Request `id` submitted with `ticket`, with these replicas placed on cluster "a".
std::unique_ptr<SchedulerWork> work(const std::string& id, uint64_t ticket, size_t placed) {
  auto out = std::make_unique<SchedulerWork>();
  out->id = id;
  out->request_id = id;
  out->ticket = ticket;
  out->spec.replicas = static_cast<int64_t>(placed);
  for (size_t n = 0; n < placed; ++n) {
    Decision::Replica replica;
    replica.placement_id = id + "/" + std::to_string(n);
    replica.cluster = "a";
    replica.node = "n" + std::to_string(n);
    out->placed.push_back(replica);
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(scheduler_outcomes)

BOOST_AUTO_TEST_CASE(a_finished_request_is_answered_counted_and_tracked_while_it_holds_replicas) {
  const struct {
    const char* what;
    Decision::Status status;
    size_t placed;
    uint64_t ticket;
    size_t replies;
    size_t tracked;
  } table[] = {
      {"placed", Decision::Status::Placed, 2, 7, 1, 1},
      {"partly placed", Decision::Status::PartiallyPlaced, 1, 7, 1, 1},
      {"placed nowhere", Decision::Status::Unschedulable, 0, 7, 1, 0},
      {"nobody waits", Decision::Status::Placed, 1, 0, 0, 1},
  };
  for (const auto& row : table) {
    Bench bench;
    const SchedulerCommands out = bench.outcomes.finish(work("r", row.ticket, row.placed),
                                                        row.status, {}, {"a note"}, bench.now);
    BOOST_TEST(out.replies.size() == row.replies, row.what);
    BOOST_TEST(bench.outcomes.tracked() == row.tracked, row.what);
    if (!out.replies.empty()) {
      const Decision& decision = out.replies.front().second;
      BOOST_TEST(out.replies.front().first == row.ticket, row.what);
      BOOST_TEST((decision.status == row.status), row.what);
      BOOST_TEST(decision.replicas.size() == row.placed, row.what);
      BOOST_TEST(decision.reasons[0] == "a note", row.what);
    }
    SchedulerCounts summary;
    bench.outcomes.add_counts(summary);
    BOOST_TEST(summary.placed == (row.status == Decision::Status::Placed ? 1u : 0u), row.what);
    BOOST_TEST(summary.unschedulable == (row.status == Decision::Status::Unschedulable ? 1u : 0u),
               row.what);
    BOOST_TEST(summary.tracked == row.tracked, row.what);
  }
}

BOOST_AUTO_TEST_CASE(a_refused_placement_is_placed_again_and_its_submitter_told) {
  Bench bench;
  bench.outcomes.finish(work("r", 7, 2), Decision::Status::Placed, {}, {}, bench.now);
  const SchedulerCommands out = bench.outcomes.on_refused_placement("r/1", "OutOfcpu", bench.now);
  BOOST_TEST_REQUIRE(bench.requeued.size() == 1u);
  BOOST_TEST(bench.requeued.front()->replaces == "r/1");
  BOOST_TEST(bench.requeued.front()->ticket == 0u);  // a replica: nobody waits for it
  BOOST_TEST_REQUIRE(out.updates.size() == 1u);
  BOOST_TEST(out.updates.front().request_id == "r");
  SchedulerCounts summary;
  bench.outcomes.add_counts(summary);
  BOOST_TEST(summary.requeued == 1u);
}

BOOST_AUTO_TEST_CASE(a_refusal_of_an_unknown_placement_is_kept_only_while_rounds_are_open) {
  Bench bench;
  BOOST_TEST(bench.outcomes.on_refused_placement("r/0", "OutOfcpu", bench.now).updates.empty());
  // No round was open: the refusal is not kept, so deciding r later places both replicas.
  bench.outcomes.finish(work("r", 7, 1), Decision::Status::Placed, {}, {}, bench.now);
  BOOST_TEST(bench.requeued.empty());

  Bench open;
  open.rounds.open(work("r", 7, 0));                                // r's round is in flight...
  open.outcomes.on_refused_placement("r/0", "OutOfcpu", open.now);  // ...when r/0 is refused
  open.outcomes.finish(work("r", 7, 1), Decision::Status::Placed, {}, {}, open.now);
  BOOST_TEST_REQUIRE(open.requeued.size() == 1u);  // placed again once the round is decided
  BOOST_TEST(open.requeued.front()->replaces == "r/0");
}

BOOST_AUTO_TEST_CASE(a_lost_cluster_actor_releases_and_places_again_what_it_did_not_confirm) {
  Bench bench;
  bench.outcomes.finish(work("r", 7, 2), Decision::Status::Placed, {}, {}, bench.now);
  bench.outcomes.on_settled({"r/0"});
  const SchedulerCommands out = bench.outcomes.on_cluster_actor_lost("a", bench.now);
  BOOST_TEST_REQUIRE(out.releases.size() == 1u);
  BOOST_TEST(out.releases.front().placement_ids == std::vector<std::string>{"r/1"},
             boost::test_tools::per_element());
  BOOST_TEST(bench.requeued.size() == 1u);
  BOOST_TEST(bench.outcomes.on_cluster_actor_lost("b", bench.now).releases.empty());
}

BOOST_AUTO_TEST_SUITE_END()
