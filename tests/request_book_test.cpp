// The hub's book of submitted requests: validation at the entry point, names, decisions, and
// the journal that carries them over a restart.
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "runtime/request_book.hpp"
#include "tests/record_stores.hpp"
#include "tests/test_files.hpp"

using unisched::runtime::RequestBook;
using unisched::testing::RecordStores;
using unisched::testing::ScratchDirectory;
namespace v1 = unisched::v1;

namespace {

std::string request_yaml(const std::string& name, const std::string& cpu = "2") {
  return "apiVersion: scheduling.cluster.io/v1\nkind: SchedulingRequest\nmetadata:\n  name: " +
         name + "\nspec:\n  replicas: 1\n  resources:\n    cpu: \"" + cpu + "\"\n    memory: 1Gi\n";
}

v1::ManifestSubmission submission(const std::string& text, bool apply = false) {
  v1::ManifestSubmission out;
  out.set_source("requests.yaml");
  out.set_manifest(text);
  out.set_apply(apply);
  return out;
}

v1::SubmissionReply submit(RequestBook& book, const std::string& text, bool apply = false,
                           size_t* scheduled = nullptr) {
  std::vector<RequestBook::ToSchedule> work;
  RequestBook::Declarations declared;
  v1::SubmissionReply reply = book.submit(submission(text, apply), work, declared);
  if (scheduled != nullptr) {
    *scheduled = work.size();
  }
  return reply;
}

v1::SchedulingDecision placed(const std::string& id) {
  v1::SchedulingDecision decision;
  decision.set_request_id(id);
  decision.set_status(v1::SchedulingDecision::PLACED);
  auto* replica = decision.add_replicas();
  replica->set_placement_id(id + "/0");
  replica->set_cluster("c1");
  replica->set_node("n1");
  return decision;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(request_book)

BOOST_AUTO_TEST_CASE(a_bad_document_is_reported_with_file_line_and_field_and_the_rest_accepted) {
  RequestBook book;
  size_t scheduled = 0;
  const auto reply =
      submit(book, request_yaml("good") + "---\n" + request_yaml("bad", "-3"), false, &scheduled);
  BOOST_TEST(scheduled == 1u);
  BOOST_REQUIRE_EQUAL(reply.accepted_size(), 1);
  BOOST_TEST(reply.accepted(0).request_id() == "good");
  BOOST_TEST(reply.accepted(0).phase() == v1::RequestStatus::PENDING);
  BOOST_REQUIRE_EQUAL(reply.problems_size(), 1);
  const std::string problem = reply.problems(0);
  BOOST_TEST(problem.find("requests.yaml:") == 0u, problem);
  BOOST_TEST(problem.find("SchedulingRequest/bad") != std::string::npos, problem);
  BOOST_TEST(problem.find("spec.resources.cpu") != std::string::npos, problem);
}

BOOST_AUTO_TEST_CASE(text_that_is_not_yaml_is_a_problem_not_a_crash) {
  RequestBook book;
  for (const std::string& text :
       {std::string("{{{"), std::string("\x01\x02\xff"), std::string("kind: [")}) {
    const auto reply = submit(book, text);
    BOOST_TEST(reply.accepted_size() == 0);
    BOOST_TEST(reply.problems_size() >= 1);
  }
  BOOST_TEST(book.list().requests_size() == 0);
}

BOOST_AUTO_TEST_CASE(names_are_unique_and_apply_of_the_same_spec_is_unchanged) {
  RequestBook book;
  submit(book, request_yaml("train"));
  size_t scheduled = 1;
  auto again = submit(book, request_yaml("train"), false, &scheduled);
  BOOST_TEST(scheduled == 0u);
  BOOST_REQUIRE_EQUAL(again.problems_size(), 1);
  BOOST_TEST(again.problems(0).find("already accepted") != std::string::npos, again.problems(0));

  auto applied = submit(book, request_yaml("train"), true, &scheduled);
  BOOST_TEST(scheduled == 0u);
  BOOST_TEST(applied.problems_size() == 0);
  BOOST_TEST(applied.accepted_size() == 1);

  auto changed = submit(book, request_yaml("train", "4"), true, &scheduled);
  BOOST_TEST(scheduled == 0u);
  BOOST_TEST(changed.problems_size() == 1);
}

BOOST_AUTO_TEST_CASE(profiles_are_returned_to_the_caller_not_scheduled) {
  RequestBook book;
  std::vector<RequestBook::ToSchedule> work;
  RequestBook::Declarations declared;
  const std::string profile = unisched::testing::read_file(std::string(UNISCHED_SOURCE_DIR) +
                                                           "/config/profiles/t4-vm-useast.yaml");
  const auto reply = book.submit(submission(profile, true), work, declared);
  BOOST_TEST(reply.profiles() == 1u);
  BOOST_REQUIRE_EQUAL(declared.profiles.size(), 1u);
  BOOST_TEST(declared.profiles.front().spec.cluster_id == "t4-useast");
  BOOST_TEST(work.empty());
}

BOOST_AUTO_TEST_CASE(quotas_are_returned_to_the_caller_with_where_they_were_written) {
  RequestBook book;
  std::vector<RequestBook::ToSchedule> work;
  RequestBook::Declarations declared;
  const auto reply = book.submit(
      submission("apiVersion: scheduling.cluster.io/v1\nkind: SchedulingQuota\nmetadata:\n"
                 "  name: team-a\nspec:\n  queue: team-a\n  hard:\n    nvidia.com/gpu: \"8\"\n",
                 true),
      work, declared);
  BOOST_TEST(reply.problems_size() == 0);
  BOOST_TEST(reply.quotas() == 1u);
  BOOST_TEST_REQUIRE(declared.quotas.size() == 1u);
  BOOST_TEST(declared.quotas.front().quota.spec.queue == "team-a");
  BOOST_TEST(declared.quotas.front().source.line == 1);
  BOOST_TEST(work.empty());
  BOOST_TEST(book.list().requests_size() == 0);
}

BOOST_AUTO_TEST_CASE(queued_requests_wait_and_finished_work_is_recorded) {
  RequestBook book;
  submit(book, request_yaml("train"));
  v1::SchedulingDecision queued;
  queued.set_request_id("train");
  queued.set_status(v1::SchedulingDecision::QUEUED);
  queued.add_reasons("waiting for quota: quota team-a: nvidia.com/gpu: 9000 would be used");
  BOOST_TEST(book.decide(queued));
  BOOST_TEST(book.find("train")->phase() == v1::RequestStatus::QUEUED);
  BOOST_TEST(book.find("train")->detail() == queued.reasons(0));
  v1::SchedulingDecision placed;
  placed.set_request_id("train");
  placed.set_status(v1::SchedulingDecision::PLACED);
  placed.set_queue("team-a");
  for (const char* id : {"train/0", "train/1"}) {
    v1::SchedulingDecision::Replica& replica = *placed.add_replicas();
    replica.set_placement_id(id);
    replica.set_cluster("c1");
    v1::QuotaPlacement& held = *placed.add_quota_placements();
    held.set_id(id);
    (*held.mutable_amounts())["nvidia.com/gpu"] = 1000;
  }
  BOOST_TEST(book.decide(placed));
  BOOST_TEST_REQUIRE(book.quota_holdings().size() == 1u);
  BOOST_TEST(book.quota_holdings().front().placements_size() == 2);
  // Another cluster cannot end work that is not on it, nor a placement the decision lacks.
  BOOST_TEST(book.finish("c2", {"train/0", "train/1"}).empty());
  BOOST_TEST(book.finish("c1", {"train/7"}).empty());
  BOOST_TEST((book.finish("c1", {"train/1", "other/0"}) == std::vector<std::string>{"train"}));
  BOOST_TEST(book.find("train")->phase() == v1::RequestStatus::PLACED);
  BOOST_TEST(book.quota_holdings().front().placements_size() == 1);
  BOOST_TEST(book.finish("c1", {"train/1"}).empty());  // told twice: recorded once
  book.finish("c1", {"train/0"});
  BOOST_TEST(book.find("train")->phase() == v1::RequestStatus::FINISHED);
  BOOST_TEST(book.quota_holdings().empty());
}

// Found by `unisched simulate` (seed 3, --faults delay): a commit reply held up in the network
// let the work end before the decision reached the hub, and the request stayed PLACED.
BOOST_AUTO_TEST_CASE(work_that_ends_before_its_decision_arrives_still_finishes_the_request) {
  RequestBook book;
  submit(book, request_yaml("batch"));
  submit(book, request_yaml("other"));
  BOOST_TEST(book.finish("c1", {"batch/0"}).empty());  // undecided: kept, nothing changed yet
  BOOST_TEST(book.finish("c2", {"other/0"}).empty());  // ended on a cluster it is not placed on
  BOOST_TEST(book.decide(placed("batch")));
  BOOST_TEST(book.find("batch")->phase() == v1::RequestStatus::FINISHED);
  BOOST_TEST(book.decide(placed("other")));
  BOOST_TEST(book.find("other")->phase() == v1::RequestStatus::PLACED);
}

BOOST_AUTO_TEST_CASE(a_replica_placed_again_that_ends_before_the_update_still_finishes_it) {
  RequestBook book;
  submit(book, request_yaml("batch"));
  BOOST_TEST(book.decide(placed("batch")));
  BOOST_TEST(book.finish("c1", {"batch/0-again/0"}).empty());  // the update is still on its way
  v1::SchedulingDecision update = placed("batch");
  update.mutable_replicas(0)->set_placement_id("batch/0-again/0");
  BOOST_TEST(book.decide(update));
  BOOST_TEST(book.find("batch")->phase() == v1::RequestStatus::FINISHED);
}

// Found by `unisched simulate` (seed 7756, agent and ClusterActor crashes): every replica was
// released (so reported ended) and placed again; the book read FINISHED, dropped the end of a
// replacement that came before its update, and stayed PLACED once the updates arrived.
BOOST_AUTO_TEST_CASE(ends_of_replacements_are_kept_while_the_released_originals_read_finished) {
  RequestBook book;
  submit(book, request_yaml("batch"));
  v1::SchedulingDecision two = placed("batch");
  *two.add_replicas() = two.replicas(0);
  two.mutable_replicas(1)->set_placement_id("batch/1");
  BOOST_TEST(book.decide(two));
  book.finish("c1", {"batch/0", "batch/1"});  // both released
  BOOST_TEST(book.find("batch")->phase() == v1::RequestStatus::FINISHED);
  book.finish("c1", {"batch/0-again/0"});  // the replacement ended before its update
  v1::SchedulingDecision update = two;
  update.mutable_replicas(0)->set_placement_id("batch/0-again/0");
  BOOST_TEST(book.decide(update));
  BOOST_TEST(book.find("batch")->phase() == v1::RequestStatus::FINISHED);  // batch/1 ended too
  update.mutable_replicas(1)->set_placement_id("batch/1-again/0");
  BOOST_TEST(book.decide(update));
  BOOST_TEST(book.find("batch")->phase() == v1::RequestStatus::PLACED);  // its replacement runs
  book.finish("c1", {"batch/1-again/0"});
  BOOST_TEST(book.find("batch")->phase() == v1::RequestStatus::FINISHED);
}

BOOST_AUTO_TEST_CASE(decisions_update_the_phase_and_unknown_ones_are_refused) {
  RequestBook book;
  submit(book, request_yaml("serve"));
  BOOST_TEST(book.decide(placed("serve")));
  BOOST_TEST(book.find("serve")->phase() == v1::RequestStatus::PLACED);
  BOOST_TEST(book.find("serve")->decision().replicas_size() == 1);
  BOOST_TEST(!book.decide(placed("never-submitted")));
}

/// recover() with no skipping; the warnings it gave.
std::vector<std::string> recover(RequestBook& book) {
  std::vector<std::string> warnings;
  const absl::Status status = book.recover(false, warnings);
  BOOST_TEST(status.ok(), status.message());
  return warnings;
}

BOOST_AUTO_TEST_CASE_TEMPLATE(the_store_recovers_decisions_and_pending_requests_are_decided_again,
                              Kind, RecordStores) {
  Kind stores;
  {
    RequestBook book(stores.next());
    BOOST_TEST(recover(book).empty());  // nothing kept yet: nothing to recover
    submit(book, request_yaml("decided") + "---\n" + request_yaml("pending"));
    BOOST_TEST(book.decide(placed("decided")));
  }
  {
    RequestBook restarted(stores.next());
    BOOST_TEST(recover(restarted).empty());
    const auto* decided = restarted.find("decided");
    const auto* pending = restarted.find("pending");
    BOOST_REQUIRE(decided != nullptr);
    BOOST_REQUIRE(pending != nullptr);
    BOOST_TEST(decided->phase() == v1::RequestStatus::PLACED);
    BOOST_TEST(decided->recovered());
    BOOST_TEST(decided->decision().replicas_size() == 1);
    BOOST_TEST(decided->attempt() == 0u);
    // Undecided at the stop: decided again, under its next attempt.
    BOOST_TEST(pending->phase() == v1::RequestStatus::PENDING);
    BOOST_TEST(pending->attempt() == 1u);
    const std::vector<RequestBook::Retry> again = restarted.take_recovered();
    BOOST_TEST_REQUIRE(again.size() == 1u);
    BOOST_TEST(again[0].work.id == "pending~1");
    BOOST_TEST(again[0].replaced == "pending");  // what attempt 0 placed is released
    BOOST_TEST(again[0].work.spec.replicas == 1);
    BOOST_TEST(restarted.take_recovered().empty());  // handed over once
    // The earlier attempt's decision is stale; the new one's is the request's.
    BOOST_TEST(!restarted.decide(placed("pending")));
    BOOST_TEST(restarted.decide(placed("pending~1")));
    BOOST_TEST(restarted.find("pending")->phase() == v1::RequestStatus::PLACED);
    BOOST_TEST(restarted.find("pending")->decision().request_id() == "pending");
  }
  // The attempt is durable: a second restart does not start attempt 1 again.
  RequestBook again(stores.next());
  recover(again);
  BOOST_TEST(again.find("pending")->attempt() == 1u);
  BOOST_TEST(again.find("pending")->phase() == v1::RequestStatus::PLACED);
  BOOST_TEST(again.take_recovered().empty());
  BOOST_TEST(again.list().requests_size() == 2);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    a_request_whose_refused_replica_was_being_placed_again_is_decided_again, Kind, RecordStores) {
  Kind stores;
  {
    RequestBook book(stores.next());
    recover(book);
    submit(book, request_yaml("replacing") + "---\n" + request_yaml("settled"));
    v1::SchedulingDecision being_replaced = placed("replacing");
    being_replaced.set_replacing(1);  // its scheduler was placing a refused replica again
    BOOST_TEST(book.decide(being_replaced));
    BOOST_TEST(book.decide(placed("settled")));
  }
  RequestBook restarted(stores.next());
  BOOST_TEST(recover(restarted).empty());
  const v1::RequestStatus* replacing = restarted.find("replacing");
  BOOST_TEST(replacing->phase() == v1::RequestStatus::PENDING);
  BOOST_TEST(replacing->decision().replicas_size() == 0);  // what it placed is released
  BOOST_TEST(restarted.find("settled")->phase() == v1::RequestStatus::PLACED);
  const std::vector<RequestBook::Retry> again = restarted.take_recovered();
  BOOST_TEST_REQUIRE(again.size() == 1u);
  BOOST_TEST(again[0].replaced == "replacing");
}

BOOST_AUTO_TEST_CASE(an_undecided_request_whose_manifest_no_longer_decodes_stops_the_start) {
  ScratchDirectory dir;
  const std::string journal = dir.path() + "/requests.journal";
  v1::RequestStatus damaged;
  damaged.set_request_id("train");
  damaged.set_phase(v1::RequestStatus::PENDING);
  damaged.set_manifest("kind: [not a request");
  BOOST_TEST_REQUIRE(
      unisched::runtime::compact_journal(journal, {damaged.SerializeAsString()}).ok());
  RequestBook book(journal);
  std::vector<std::string> warnings;
  const absl::Status status = book.recover(false, warnings);
  BOOST_TEST((status.code() == absl::StatusCode::kDataLoss), status.message());
  BOOST_TEST(book.take_recovered().empty());
}

BOOST_AUTO_TEST_CASE(a_retried_request_counts_only_its_new_attempts_work) {
  RequestBook book;
  submit(book, request_yaml("train"));
  BOOST_TEST(book.decide(placed("train")));
  const std::vector<RequestBook::Retry> retried =
      book.retry({"train", "nobody"}, "a placement never ran");
  BOOST_TEST_REQUIRE(retried.size() == 1u);  // an unknown request is left out
  const RequestBook::Retry* retry = &retried[0];
  BOOST_TEST(retry->replaced == "train");
  BOOST_TEST(retry->work.id == "train~1");
  BOOST_TEST(book.find("train")->phase() == v1::RequestStatus::PENDING);
  BOOST_TEST(book.attempt_of("train") == "train~1");
  // The earlier attempt's work ending is not the request's.
  BOOST_TEST(book.finish("c1", {"train/0"}).empty());
  BOOST_TEST(book.decide(placed("train~1")));
  BOOST_TEST(book.finish("c1", {"train~1/0"}) == std::vector<std::string>{"train"});
  BOOST_TEST(book.find("train")->phase() == v1::RequestStatus::FINISHED);
  // Ended requests are not decided again; unknown ones neither.
  BOOST_TEST(book.retry({"train"}, "again").empty());
}

BOOST_AUTO_TEST_CASE(a_torn_tail_is_cut_with_a_warning_and_what_came_before_kept) {
  ScratchDirectory dir;
  const std::string journal = dir.path() + "/requests.journal";
  {
    RequestBook book(journal);
    recover(book);
    submit(book, request_yaml("first"));
    BOOST_TEST(book.decide(placed("first")));
  }
  std::ofstream(journal, std::ios::binary | std::ios::app) << "\xA5JRZ\x40\x00\x00";  // torn
  {
    RequestBook restarted(journal);
    const auto warnings = recover(restarted);
    BOOST_REQUIRE_EQUAL(warnings.size(), 1u);
    BOOST_TEST(warnings.front().find("the last write did not finish") != std::string::npos,
               warnings.front());
    BOOST_REQUIRE(restarted.find("first") != nullptr);
    BOOST_TEST(restarted.find("first")->phase() == v1::RequestStatus::PLACED);
  }
  RequestBook again(journal);
  BOOST_TEST(recover(again).empty());  // the tail was cut for good
}

BOOST_AUTO_TEST_CASE(the_book_stays_bounded_over_100000_requests) {
  RequestBook book(std::string(), 1000);  // no store
  std::string batch;
  size_t accepted = 0;
  for (int i = 0; i < 100'000; ++i) {
    batch += request_yaml("r" + std::to_string(i)) + "---\n";
    if ((i + 1) % 10'000 != 0) {
      continue;
    }
    // Ten submissions of 10,000: each request is decided as soon as it is accepted.
    std::vector<RequestBook::ToSchedule> work;
    RequestBook::Declarations declared;
    const auto reply = book.submit(submission(batch), work, declared);
    batch.clear();
    accepted += static_cast<size_t>(reply.accepted_size());
    for (const auto& request : work) {
      BOOST_TEST_REQUIRE(book.decide(placed(request.id)));
    }
    BOOST_TEST_REQUIRE(book.list().requests_size() <= 1000);
  }
  // Within one submission the book fills with undecided requests: the rest are refused.
  BOOST_TEST(accepted == 10u * 1000u);
  const v1::RequestList list = book.list();
  BOOST_TEST(list.requests_size() == 1000);
  BOOST_TEST(list.forgotten() == 9u * 1000u);
  BOOST_TEST(list.refused_full() == 90'000u);
  BOOST_TEST(book.find("r99999") == nullptr);  // refused: the book was full of undecided ones
  BOOST_TEST(book.find("r90999") != nullptr);  // the last batch's first thousand are kept
}

BOOST_AUTO_TEST_CASE(a_full_book_refuses_new_requests_with_a_clear_problem_and_keeps_the_old) {
  RequestBook book(std::string(), 2);
  submit(book, request_yaml("a") + "---\n" + request_yaml("b"));
  const auto refused = submit(book, request_yaml("c"));
  BOOST_TEST(refused.accepted_size() == 0);
  BOOST_REQUIRE_EQUAL(refused.problems_size(), 1);
  BOOST_TEST(refused.problems(0).find("awaiting decisions, the most it keeps") != std::string::npos,
             refused.problems(0));
  BOOST_TEST(book.decide(placed("a")));
  const auto room = submit(book, request_yaml("c"));
  BOOST_TEST(room.accepted_size() == 1);  // "a" was decided, so it made room
  BOOST_TEST(book.find("a") == nullptr);
  BOOST_TEST(book.find("b") != nullptr);  // undecided requests are never forgotten
}

BOOST_AUTO_TEST_SUITE_END()
