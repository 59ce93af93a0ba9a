// The stores every store-backed test runs over, one type each (Boost's template test cases):
// next() is the store the next hub starts with.
#pragma once

#include <boost/mpl/list.hpp>
#include <memory>

#include "runtime/journal_store.hpp"
#include "runtime/record_store.hpp"
#include "tests/test_files.hpp"

namespace unisched::testing {

/// The stores of one journal file: each hub opens it anew.
struct JournalStores {
  ScratchDirectory dir;
  std::shared_ptr<runtime::RecordStore> next() {
    return std::make_shared<runtime::JournalStore>(dir.path() + "/requests.journal");
  }
};

/// The one store in memory that every hub shares.
struct MemoryStores {
  std::shared_ptr<runtime::RecordStore> store = std::make_shared<runtime::MemoryStore>();
  std::shared_ptr<runtime::RecordStore> next() { return store; }
};

using RecordStores = boost::mpl::list<JournalStores, MemoryStores>;

}  // namespace unisched::testing
