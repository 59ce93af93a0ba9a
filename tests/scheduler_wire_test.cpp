// actors/scheduler_wire: a scheduler core's decision and counts reach the wire whole: every
// field of a RequestDecision in its v1::SchedulingDecision, every status by its own value, every
// count in the v1::SchedulerSummary.
#include "actors/scheduler_wire.hpp"

#include <boost/test/unit_test.hpp>
#include <iterator>
#include <utility>

namespace actors = unisched::actors;
namespace v1 = unisched::v1;
using Decision = actors::RequestDecision;

BOOST_AUTO_TEST_SUITE(scheduler_wire)

BOOST_AUTO_TEST_CASE(each_status_has_its_own_value_on_the_wire) {
  const std::pair<Decision::Status, v1::SchedulingDecision::Status> table[] = {
      {Decision::Status::Placed, v1::SchedulingDecision::PLACED},
      {Decision::Status::PartiallyPlaced, v1::SchedulingDecision::PARTIALLY_PLACED},
      {Decision::Status::Unschedulable, v1::SchedulingDecision::UNSCHEDULABLE},
      {Decision::Status::Queued, v1::SchedulingDecision::QUEUED},
  };
  for (const auto& [status, wire] : table) {
    Decision decision;
    decision.status = status;
    BOOST_TEST((actors::to_wire(decision).status() == wire));
  }
}

BOOST_AUTO_TEST_CASE(a_decision_reaches_the_wire_with_every_field) {
  Decision decision;
  decision.request_id = "train";
  decision.status = Decision::Status::PartiallyPlaced;
  decision.replicas = {{"train/0", "a100", "n1", {0, 1}, {}}, {"train/1", "l4", "n7", {3}, {500}}};
  decision.diagnoses = {{"t4", "NodeResourcesFit", "no node has 2 GPUs"}};
  decision.reasons = {"t4: NodeResourcesFit: no node has 2 GPUs", "a note"};
  decision.attempts = 3;
  decision.latency_us = 1234;
  decision.queue = "team-a";
  decision.quota_placements["train/0"].amounts = {{"nvidia.com/gpu", 2000}};
  decision.quota_placements["train/0"].cluster = "a100";
  decision.replacing = 1;

  const v1::SchedulingDecision wire = actors::to_wire(decision);
  BOOST_TEST(wire.request_id() == "train");
  BOOST_TEST((wire.status() == v1::SchedulingDecision::PARTIALLY_PLACED));
  BOOST_TEST_REQUIRE(wire.replicas_size() == 2);
  BOOST_TEST(wire.replicas(0).placement_id() == "train/0");
  BOOST_TEST(wire.replicas(0).cluster() == "a100");
  BOOST_TEST(wire.replicas(0).node() == "n1");
  BOOST_TEST(wire.replicas(0).devices_size() == 2);
  BOOST_TEST(wire.replicas(0).device_milli_size() == 0);
  BOOST_TEST(wire.replicas(1).devices(0) == 3);
  BOOST_TEST(wire.replicas(1).device_milli(0) == 500);
  BOOST_TEST_REQUIRE(wire.diagnoses_size() == 1);
  BOOST_TEST(wire.diagnoses(0).cluster() == "t4");
  BOOST_TEST(wire.diagnoses(0).plugin() == "NodeResourcesFit");
  BOOST_TEST(wire.diagnoses(0).reason() == "no node has 2 GPUs");
  BOOST_TEST_REQUIRE(wire.reasons_size() == 2);
  BOOST_TEST(wire.reasons(1) == "a note");
  BOOST_TEST(wire.attempts() == 3u);
  BOOST_TEST(wire.latency_us() == 1234);
  BOOST_TEST(wire.queue() == "team-a");
  BOOST_TEST_REQUIRE(wire.quota_placements_size() == 1);
  BOOST_TEST(wire.quota_placements(0).id() == "train/0");
  BOOST_TEST(wire.quota_placements(0).cluster() == "a100");
  BOOST_TEST(wire.quota_placements(0).amounts().at("nvidia.com/gpu") == 2000);
  BOOST_TEST(wire.replacing() == 1u);
}

BOOST_AUTO_TEST_CASE(the_counts_reach_the_wire_each_in_its_own_field) {
  actors::SchedulerCounts counts;
  uint64_t next = 1;  // every count a different value, so two swapped fields are caught
  for (uint64_t* field :
       {&counts.requests, &counts.placed, &counts.partially_placed, &counts.unschedulable,
        &counts.commits, &counts.conflicts, &counts.retries, &counts.requeued,
        &counts.refused_queue_full, &counts.commits_timed_out, &counts.forgotten_unsettled,
        &counts.waiting, &counts.tracked, &counts.quota_queued, &counts.waiting_for_quota,
        &counts.quota_lease_takes}) {
    *field = next++;
  }
  counts.decision_latency_buckets = {4, 0, 2};
  counts.decision_latency_seconds_sum = 0.5;
  counts.undecided_by_reason = {{"queued", 2}, {"committing", 1}};
  counts.oldest_undecided_seconds = 7.25;

  const v1::SchedulerSummary wire = actors::to_wire(counts);
  const uint64_t read[] = {wire.requests(),
                           wire.placed(),
                           wire.partially_placed(),
                           wire.unschedulable(),
                           wire.commits(),
                           wire.conflicts(),
                           wire.retries(),
                           wire.requeued(),
                           wire.refused_queue_full(),
                           wire.commits_timed_out(),
                           wire.forgotten_unsettled(),
                           wire.waiting(),
                           wire.tracked(),
                           wire.quota_queued(),
                           wire.waiting_for_quota(),
                           wire.quota_lease_takes()};
  for (uint64_t i = 0; i < std::size(read); ++i) {
    BOOST_TEST(read[i] == i + 1);
  }
  BOOST_TEST_REQUIRE(wire.decision_latency_buckets_size() == 3);
  BOOST_TEST(wire.decision_latency_buckets(0) == 4u);
  BOOST_TEST(wire.decision_latency_buckets(2) == 2u);
  BOOST_TEST(wire.decision_latency_seconds_sum() == 0.5);
  BOOST_TEST(wire.undecided_by_reason().at("queued") == 2u);
  BOOST_TEST(wire.undecided_by_reason().at("committing") == 1u);
  BOOST_TEST(wire.oldest_undecided_seconds() == 7.25);
}

BOOST_AUTO_TEST_SUITE_END()
