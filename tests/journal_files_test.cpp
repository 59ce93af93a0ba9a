// A journal's files against a second hub and against what else lies in its folder (issue 66,
// item 3): an exclusive lock naming its holder; temporary files created only as new regular
// files; the journal's mode kept; a journal given as a symlink stays one.
#include <sys/stat.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>

#include "runtime/journal.hpp"
#include "runtime/journal_files.hpp"
#include "runtime/quota_book.hpp"
#include "runtime/request_book.hpp"
#include "tests/hub_process.hpp"
#include "tests/journal_fixtures.hpp"

using namespace unisched::runtime;
using unisched::testing::kBinary;
using unisched::testing::read_file;
using unisched::testing::ScratchDirectory;
using unisched::testing::write_request_journal;
namespace fs = std::filesystem;

namespace {

mode_t mode_of(const std::string& path) {
  struct stat found;
  BOOST_TEST_REQUIRE(::stat(path.c_str(), &found) == 0, path);
  return found.st_mode & 07777;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(journal_files)

BOOST_AUTO_TEST_CASE(a_second_book_on_a_journal_is_refused_naming_the_holder) {
  ScratchDirectory dir;
  const std::string path = dir.path() + "/requests.journal";
  std::vector<std::string> warnings;
  auto first = std::make_unique<RequestBook>(path);
  BOOST_TEST_REQUIRE(first->recover(false, warnings).ok());
  BOOST_TEST(read_file(path + ".lock") == std::to_string(::getpid()) + "\n");
  // By the same name and through a symlink to it: one file, one holder.
  fs::create_symlink(path, dir.path() + "/link");
  for (const std::string& name : {path, dir.path() + "/link"}) {
    RequestBook second(name);
    const absl::Status refused = second.recover(false, warnings);
    BOOST_TEST(!refused.ok(), name);
    const std::string message(refused.message());
    BOOST_TEST(message.find("is in use by pid " + std::to_string(::getpid())) != std::string::npos,
               message);
  }
  first.reset();  // the lock goes with the book
  RequestBook after(path);
  BOOST_TEST(after.recover(false, warnings).ok());
}

BOOST_AUTO_TEST_CASE(a_symlink_planted_at_the_temporary_name_is_never_written_through) {
  ScratchDirectory dir;
  const std::string path = dir.path() + "/requests.journal";
  write_request_journal(path, 3);
  const std::string victim = dir.write("victim", "precious\n");
  for (const std::string suffix : {".new", ".quotas.new"}) {
    fs::create_symlink(victim, path + suffix);
  }
  std::vector<std::string> warnings;
  RequestBook book(path);
  const absl::Status refused = book.recover(false, warnings);
  BOOST_TEST(!refused.ok());
  BOOST_TEST(std::string(refused.message()).find(path + ".new exists and is not a regular file") !=
                 std::string::npos,
             refused.message());
  QuotaBook quotas(path + ".quotas");
  BOOST_TEST(!quotas.recover(warnings).ok());
  BOOST_TEST(read_file(victim) == "precious\n");
  BOOST_TEST(fs::is_symlink(path + ".new"));  // refused, not removed: the operator looks first
}

BOOST_AUTO_TEST_CASE(a_stale_regular_temporary_file_is_removed_and_the_records_kept) {
  ScratchDirectory dir;
  const std::string path = dir.path() + "/requests.journal";
  write_request_journal(path, 5);
  dir.write("requests.journal.new", "half of a rewrite");
  std::vector<std::string> warnings;
  RequestBook book(path);
  BOOST_TEST_REQUIRE(book.recover(false, warnings).ok());
  BOOST_TEST(book.list().requests_size() == 5);
  BOOST_TEST(!fs::exists(path + ".new"));
}

BOOST_AUTO_TEST_CASE(a_rewrite_keeps_the_journals_mode_and_a_new_one_is_the_owners_alone) {
  ScratchDirectory dir;
  const std::string path = dir.path() + "/requests.journal";
  std::vector<std::string> warnings;
  {
    RequestBook book(path);
    BOOST_TEST_REQUIRE(book.recover(false, warnings).ok());
  }
  BOOST_TEST(mode_of(path) == 0600u);
  const mode_t before = ::umask(0);  // a permissive umask must not widen it either
  ::chmod(path.c_str(), 0640);
  for (int restart = 0; restart < 2; ++restart) {
    RequestBook book(path);
    BOOST_TEST_REQUIRE(book.recover(false, warnings).ok());
  }
  ::umask(before);
  BOOST_TEST(mode_of(path) == 0640u);
}

BOOST_AUTO_TEST_CASE(a_journal_given_as_a_symlink_stays_one_and_its_target_is_written) {
  ScratchDirectory dir;
  fs::create_directories(dir.path() + "/data");
  const std::string target = dir.path() + "/data/requests.journal";
  write_request_journal(target, 2);
  const std::string link = dir.path() + "/requests.journal";
  fs::create_symlink(target, link);
  std::vector<std::string> warnings;
  {
    RequestBook book(link);
    BOOST_TEST_REQUIRE(book.recover(false, warnings).ok());
    BOOST_TEST(book.list().requests_size() == 2);
  }
  BOOST_TEST(fs::is_symlink(link));
  BOOST_TEST(fs::exists(target + ".lock"));  // the lock and temporary files beside the target
  const auto contents = read_journal(target);
  BOOST_TEST_REQUIRE(contents.ok());
  BOOST_TEST(contents->records.size() == 2u);
  fs::create_symlink(dir.path() + "/nowhere", dir.path() + "/dangling");
  RequestBook dangling(dir.path() + "/dangling");
  const absl::Status refused = dangling.recover(false, warnings);
  BOOST_TEST(std::string(refused.message()).find("is a symlink whose target cannot be used") !=
                 std::string::npos,
             refused.message());
}

BOOST_AUTO_TEST_CASE(a_second_hub_on_one_journal_refuses_to_start_naming_the_first) {
  ScratchDirectory dir;
  const std::string journal = dir.path() + "/requests.journal";
  unisched::testing::Hub first(0, {"--journal", journal});
  unisched::testing::ChildProcess second(
      {kBinary, "serve", "--listen", "127.0.0.1:0", "--journal", journal},
      dir.path() + "/second.out");
  const int status = second.stop(0);  // it must exit by itself
  const std::string output = second.output();
  BOOST_TEST(status == 1, output);
  BOOST_TEST(
      output.find("is in use by pid " + std::to_string(first.process->pid())) != std::string::npos,
      output);
  BOOST_TEST(output.find("listening on") == std::string::npos, output);
}

BOOST_AUTO_TEST_SUITE_END()
