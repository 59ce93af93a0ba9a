// RecordStore: every store keeps what a hub put, for the hub after it (requests' records, and
// the applied quotas and profiles), the same cases over the local journal (each hub opens the
// file anew) and over memory (which outlives its hubs).
#include "runtime/record_store.hpp"

#include <boost/test/unit_test.hpp>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/journal_store.hpp"
#include "runtime/quota_book.hpp"
#include "tests/record_stores.hpp"
#include "tests/test_files.hpp"

using unisched::runtime::JournalStore;
using unisched::runtime::ProfileBook;
using unisched::runtime::QuotaBook;
using unisched::runtime::RecordStore;
using unisched::testing::RecordStores;
namespace v1 = unisched::v1;
using unisched::testing::ScratchDirectory;

namespace {

/// What a store read back holds, the last record of each key winning ("key=value" records).
std::map<std::string, std::string> last_per_key(const std::vector<std::string>& records) {
  std::map<std::string, std::string> out;
  for (const std::string& record : records) {
    const size_t equals = record.find('=');
    out[record.substr(0, equals)] = record.substr(equals + 1);
  }
  return out;
}

std::map<std::string, std::string> opened(RecordStore& store) {
  std::vector<std::string> warnings;
  auto records = store.open(false, warnings);
  BOOST_TEST_REQUIRE(records.ok(), records.status().message());
  BOOST_TEST(warnings.empty());
  return last_per_key(*records);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(record_store)

BOOST_AUTO_TEST_CASE_TEMPLATE(what_a_hub_put_and_synced_is_read_back_by_the_next, Kind,
                              RecordStores) {
  Kind stores;
  {
    const std::shared_ptr<RecordStore> first = stores.next();
    BOOST_TEST(opened(*first).empty());  // nothing kept yet
    BOOST_TEST_REQUIRE(first->rewrite({}).ok());
    BOOST_TEST(first->put("a", "a=1"));
    BOOST_TEST(first->put("b", "b=1"));
    BOOST_TEST(first->put("a", "a=2"));  // the last of a key wins
    BOOST_TEST(first->sync());
  }
  {
    const std::shared_ptr<RecordStore> second = stores.next();
    BOOST_TEST((opened(*second) == std::map<std::string, std::string>{{"a", "2"}, {"b", "1"}}));
    // A rewrite replaces everything kept; puts go on after it.
    BOOST_TEST_REQUIRE(second->rewrite({{"c", "c=1"}}).ok());
    BOOST_TEST(second->put("c", "c=2"));
    BOOST_TEST(second->sync());
  }
  const std::shared_ptr<RecordStore> third = stores.next();
  BOOST_TEST((opened(*third) == std::map<std::string, std::string>{{"c", "2"}}));
}

BOOST_AUTO_TEST_CASE_TEMPLATE(applied_quotas_and_profiles_are_read_back_by_the_next_hub, Kind,
                              RecordStores) {
  Kind quota_stores;
  Kind profile_stores;
  {
    QuotaBook quotas(quota_stores.next());
    ProfileBook profiles(profile_stores.next());
    std::vector<std::string> warnings;
    BOOST_TEST_REQUIRE(quotas.recover(warnings).ok());
    BOOST_TEST_REQUIRE(profiles.recover(warnings).ok());
    v1::QuotaDefinition quota;
    quota.set_queue("team-a");
    quota.set_weight(1);
    BOOST_TEST(quotas.record(quota));
    quota.set_weight(3);  // applied again: the last wins
    BOOST_TEST(quotas.record(quota));
    v1::ClusterRegistration profile;
    profile.mutable_identity()->set_cluster_id("a100-uswest");
    BOOST_TEST(profiles.record(profile));
  }
  QuotaBook quotas(quota_stores.next());
  ProfileBook profiles(profile_stores.next());
  std::vector<std::string> warnings;
  BOOST_TEST_REQUIRE(quotas.recover(warnings).ok());
  BOOST_TEST_REQUIRE(profiles.recover(warnings).ok());
  BOOST_TEST_REQUIRE(quotas.definitions().size() == 1u);
  BOOST_TEST(quotas.definitions()[0].weight() == 3);
  BOOST_TEST_REQUIRE(profiles.values().size() == 1u);
  BOOST_TEST(profiles.values()[0].identity().cluster_id() == "a100-uswest");
}

BOOST_AUTO_TEST_CASE(a_journal_another_hub_holds_is_refused_and_one_never_opened_takes_nothing) {
  ScratchDirectory dir;
  JournalStore first(dir.path() + "/requests.journal");
  std::vector<std::string> warnings;
  BOOST_TEST_REQUIRE(first.open(false, warnings).ok());
  JournalStore second(dir.path() + "/requests.journal");
  const auto refused = second.open(false, warnings);
  BOOST_TEST(!refused.ok());
  BOOST_TEST((refused.status().code() == absl::StatusCode::kFailedPrecondition),
             refused.status().message());
  JournalStore never_opened(dir.path() + "/other.journal");
  BOOST_TEST(!never_opened.put("a", "a=1"));
  BOOST_TEST(!never_opened.sync());
}

BOOST_AUTO_TEST_SUITE_END()
