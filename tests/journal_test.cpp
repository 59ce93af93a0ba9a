// The journal file (runtime/journal) and the request book's use of it: damage is found, located
// and never silently deletes intact records; files that are not journals are never touched; a
// journal that cannot be written is an error, not a warning (issue 14, items 6 and 7); the
// hub's declarations keep the last record per key.
#include "runtime/journal.hpp"

#include <signal.h>
#include <sys/resource.h>

#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>

#include "runtime/quota_book.hpp"
#include "runtime/request_book.hpp"
#include "tests/hub_process.hpp"
#include "tests/journal_fixtures.hpp"

using namespace unisched::runtime;
using unisched::testing::kBinary;
using unisched::testing::read_file;
using unisched::testing::ScratchDirectory;
using unisched::testing::write_request_journal;
namespace v1 = unisched::v1;

namespace {

std::string journal_of(int records) {
  std::string bytes(kJournalHeader);
  for (int i = 0; i < records; ++i) {
    bytes += encode_journal_record("record-" + std::to_string(i) + std::string(20, 'x'));
  }
  return bytes;
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(journal)

BOOST_AUTO_TEST_CASE(intact_records_read_back_in_order) {
  const auto contents = parse_journal(journal_of(3));
  BOOST_TEST_REQUIRE(contents.ok());
  BOOST_TEST(contents->records.size() == 3u);
  BOOST_TEST(contents->records[2] == "record-2" + std::string(20, 'x'));
  BOOST_TEST(contents->damaged.empty());
  BOOST_TEST(!contents->torn_tail.has_value());
  BOOST_TEST(parse_journal(std::string(kJournalHeader))->records.empty());
}

BOOST_AUTO_TEST_CASE(damage_in_the_middle_is_located_and_the_records_after_it_kept) {
  std::string bytes = journal_of(468);
  const size_t middle = bytes.size() / 2;
  for (size_t i = middle; i < middle + 20; ++i) {
    bytes[i] = static_cast<char>(bytes[i] ^ 0x5a);  // issue 14's case: 20 bytes flipped
  }
  const auto contents = parse_journal(bytes);
  BOOST_TEST_REQUIRE(contents.ok());
  BOOST_TEST_REQUIRE(contents->damaged.size() == 1u);
  BOOST_TEST(contents->damaged[0].offset <= middle);
  BOOST_TEST(contents->damaged[0].offset + contents->damaged[0].bytes >= middle + 20);
  BOOST_TEST(contents->records.size() >= 466u);  // at most two records touched
  BOOST_TEST(contents->records.back() == "record-467" + std::string(20, 'x'));
  BOOST_TEST(!contents->torn_tail.has_value());
}

BOOST_AUTO_TEST_CASE(a_torn_tail_and_lies_about_lengths_are_damage_not_crashes) {
  std::string torn = journal_of(2);
  const size_t intact = torn.size();
  torn += encode_journal_record("the last one").substr(0, 9);
  auto contents = parse_journal(torn);
  BOOST_TEST_REQUIRE(contents->torn_tail.has_value());
  BOOST_TEST(contents->torn_tail->offset == intact);
  BOOST_TEST(contents->intact_end == intact);
  BOOST_TEST(contents->records.size() == 2u);
  // A length of 4 GiB, a length past the end, a record whose checksum does not match.
  std::string lies = journal_of(1);
  lies += std::string("\xA5JRZ\xff\xff\xff\xff\0\0\0\0", 12);
  lies += std::string("\xA5JRZ\x10\0\0\0\0\0\0\0abc", 15);
  std::string bad_sum = encode_journal_record("checksummed");
  bad_sum.back() = '!';
  lies += bad_sum;
  contents = parse_journal(lies);
  BOOST_TEST(contents->records.size() == 1u);
  BOOST_TEST(contents->torn_tail.has_value());
}

BOOST_AUTO_TEST_CASE(only_a_file_that_begins_with_the_header_is_a_journal) {
  BOOST_TEST(parse_journal("# unisched\nA C++17 runtime").status().code() ==
             absl::StatusCode::kInvalidArgument);
  BOOST_TEST(!parse_journal("unisched journal v").ok());
}

BOOST_AUTO_TEST_CASE(the_book_refuses_damage_unless_told_to_skip_it) {
  ScratchDirectory dir;
  const std::string path = dir.path() + "/requests.journal";
  write_request_journal(path, 468);
  std::string bytes = read_file(path);
  for (size_t i = bytes.size() / 2; i < bytes.size() / 2 + 20; ++i) {
    bytes[i] = static_cast<char>(~bytes[i]);
  }
  write_bytes(path, bytes);
  std::vector<std::string> warnings;
  RequestBook refused(path);
  const absl::Status status = refused.recover(false, warnings);
  BOOST_TEST((status.code() == absl::StatusCode::kDataLoss), status.message());
  // The refusal names the flag that starts the hub anyway.
  BOOST_TEST(status.message().find("--journal-skip-damaged") != std::string::npos);
  BOOST_TEST(read_file(path) == bytes);  // nothing deleted
  RequestBook skipping(path);
  BOOST_TEST(skipping.recover(true, warnings).ok());
  BOOST_TEST(warnings.size() == 1u);  // the damage skipped
  BOOST_TEST(skipping.list().requests_size() >= 466);
  BOOST_TEST(skipping.find("request-467") != nullptr);
}

BOOST_AUTO_TEST_CASE(a_file_that_is_not_a_journal_or_no_file_at_all_stops_the_start) {
  ScratchDirectory dir;
  const std::string readme = dir.write("README.md", "# unisched\n\nNot a journal.\n");
  std::vector<std::string> warnings;
  RequestBook book(readme);
  const absl::Status status = book.recover(false, warnings);
  BOOST_TEST((status.code() == absl::StatusCode::kFailedPrecondition), status.message());
  BOOST_TEST(read_file(readme) == "# unisched\n\nNot a journal.\n");  // untouched
  for (const std::string& path : {dir.path(), dir.path() + "/missing-folder/requests.journal"}) {
    RequestBook unusable(path);
    BOOST_TEST(!unusable.recover(false, warnings).ok(), path);
  }
  RequestBook fresh(dir.path() + "/new.journal");  // a missing file in a folder that exists
  BOOST_TEST(fresh.recover(false, warnings).ok());
  BOOST_TEST(read_file(dir.path() + "/new.journal") == std::string(kJournalHeader));
}

BOOST_AUTO_TEST_CASE(a_request_is_accepted_only_once_its_record_is_written) {
  ScratchDirectory dir;
  const std::string path = dir.path() + "/requests.journal";
  RequestBook book(path);
  std::vector<std::string> warnings;
  BOOST_TEST_REQUIRE(book.recover(false, warnings).ok());
  // The disk fills: writes past the journal's current size fail (EFBIG), as on a full disk.
  rlimit saved{};
  getrlimit(RLIMIT_FSIZE, &saved);
  const auto previous = signal(SIGXFSZ, SIG_IGN);
  rlimit full = saved;
  full.rlim_cur = std::filesystem::file_size(path);
  setrlimit(RLIMIT_FSIZE, &full);
  v1::ManifestSubmission submission;
  submission.set_source("requests.yaml");
  submission.set_manifest(
      "apiVersion: scheduling.cluster.io/v1\nkind: SchedulingRequest\nmetadata:\n  name: late\n"
      "spec:\n  replicas: 1\n  resources:\n    cpu: \"1\"\n    memory: 1Gi\n");
  std::vector<RequestBook::ToSchedule> work;
  RequestBook::Declarations declared;
  const auto reply = book.submit(submission, work, declared);
  setrlimit(RLIMIT_FSIZE, &saved);
  signal(SIGXFSZ, previous);
  BOOST_TEST(work.empty());
  BOOST_TEST(reply.accepted_size() == 0);
  BOOST_TEST_REQUIRE(reply.problems_size() == 1);
  BOOST_TEST(reply.problems(0).find("cannot be written") != std::string::npos, reply.problems(0));
  BOOST_TEST(book.find("late") == nullptr);
  BOOST_TEST(book.journal_failed());
}

BOOST_AUTO_TEST_CASE(serve_refuses_to_start_on_a_journal_it_cannot_use) {
  ScratchDirectory dir;
  const std::string readme = dir.write("README.md", "# unisched\n");
  const auto serve = [&](const std::string& journal, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {kBinary,       "serve",     "--listen",
                                     "127.0.0.1:0", "--journal", journal};
    args.insert(args.end(), extra.begin(), extra.end());
    return std::make_unique<unisched::testing::ChildProcess>(args, dir.path() + "/serve.out");
  };
  const auto refused = [&](const std::string& journal) {
    auto hub = serve(journal);
    const int status = hub->stop(0);  // it must exit by itself, within 5 s
    return std::pair{status, hub->output()};
  };
  for (const std::string& journal : {readme, dir.path(), dir.path() + "/no-such-folder/j"}) {
    const auto [status, output] = refused(journal);
    BOOST_TEST(status == 1, journal << ": " << output);
    BOOST_TEST(output.find("error: --journal: ") != std::string::npos, output);
    BOOST_TEST(output.find("listening on") == std::string::npos, output);
  }
  BOOST_TEST(read_file(readme) == "# unisched\n");
  const std::string damaged = dir.path() + "/damaged.journal";
  write_request_journal(damaged, 40);
  std::string bytes = read_file(damaged);
  bytes[bytes.size() / 2] = static_cast<char>(~bytes[bytes.size() / 2]);
  write_bytes(damaged, bytes);
  const auto [status, output] = refused(damaged);
  BOOST_TEST(status == 1, output);
  BOOST_TEST(output.find("damaged records at offset") != std::string::npos, output);
  auto skipping = serve(damaged, {"--journal-skip-damaged"});
  unisched::testing::wait_for_listening(*skipping, "the hub skipping damage");
  BOOST_TEST(skipping->output().find("39 requests recovered") != std::string::npos,
             skipping->output());
  BOOST_TEST(skipping->stop() == 0);
}

BOOST_AUTO_TEST_CASE(declarations_keep_the_last_per_key_and_refuse_damage) {
  ScratchDirectory dir;
  const std::string path = dir.path() + "/requests.journal.profiles";
  const auto registration = [](const std::string& id, const std::string& region) {
    v1::ClusterRegistration out;
    out.mutable_identity()->set_cluster_id(id);
    out.set_region(region);
    return out;
  };
  std::vector<std::string> warnings;
  {
    ProfileBook book(path);
    BOOST_TEST_REQUIRE(book.recover(warnings).ok());
    BOOST_TEST(book.record(registration("a", "us-west")));
    BOOST_TEST(book.record(registration("b", "eu-west")));
    BOOST_TEST(book.record(registration("a", "us-east")));  // applied again: this one wins
  }
  ProfileBook reopened(path);
  BOOST_TEST_REQUIRE(reopened.recover(warnings).ok());
  const auto values = reopened.values();
  BOOST_TEST_REQUIRE(values.size() == 2u);
  BOOST_TEST(values[0].region() == "us-east");
  BOOST_TEST(warnings.empty());
  // A torn tail is cut with a warning; damage before intact records stops the start.
  write_bytes(path, read_file(path) + encode_journal_record("half").substr(0, 9));
  ProfileBook torn(path);
  BOOST_TEST_REQUIRE(torn.recover(warnings).ok());
  BOOST_TEST(warnings.size() == 1u);  // the torn tail cut
  BOOST_TEST(torn.values().size() == 2u);
  std::string bytes = read_file(path);
  bytes[kJournalHeader.size() + 14] = static_cast<char>(~bytes[kJournalHeader.size() + 14]);
  write_bytes(path, bytes);
  const absl::Status damaged = ProfileBook(path).recover(warnings);
  BOOST_TEST((damaged.code() == absl::StatusCode::kDataLoss), damaged.message());
  // An intact record that is no profile (no cluster id) stops the start too.
  BOOST_TEST_REQUIRE(rewrite_journal(path, {v1::ClusterRegistration().SerializeAsString()}).ok());
  const absl::Status foreign = ProfileBook(path).recover(warnings);
  BOOST_TEST((foreign.code() == absl::StatusCode::kDataLoss), foreign.message());
}

BOOST_AUTO_TEST_SUITE_END()
