// Where the hub keeps what must survive it: records under keys, the last put of a key winning.
// One interface, several stores: the local journal file (runtime/journal_store.hpp, the
// default), memory that outlives the hub it serves (a simulation's or a test's restarts), and
// later etcd. The request book reads and writes its records only through one. Plain C++.
#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace unisched::runtime {

class RecordStore {
 public:
  using Keyed = std::vector<std::pair<std::string, std::string>>;  // (key, record)

  virtual ~RecordStore() = default;

  /// Takes the store for this hub and reads back what it keeps, oldest first; the last record
  /// of a key wins (a store may hand back earlier ones too). Damage is an error unless
  /// `skip_damaged` (then a warning, the intact records kept); so is a store another hub holds.
  virtual absl::StatusOr<std::vector<std::string>> open(bool skip_damaged,
                                                        std::vector<std::string>& warnings) = 0;
  /// Replaces everything kept by `records`, one per key, durably (after a recovery changed them).
  virtual absl::Status rewrite(const Keyed& records) = 0;
  /// Keeps `record` as the last of `key` once synced; false once the store failed.
  virtual bool put(const std::string& key, const std::string& record) = 0;
  /// Makes every put so far durable; false (and no more puts) when it cannot be.
  virtual bool sync() = 0;
  /// Where it keeps them, for messages.
  virtual const std::string& where() const = 0;
};

/// Records in memory, kept as long as the store lives: a hub that restarts over the same store
/// reads back what the one before put, as from a journal, each key's in the order of its first
/// put. Never fails.
class MemoryStore : public RecordStore {
 public:
  absl::StatusOr<std::vector<std::string>> open(bool skip_damaged,
                                                std::vector<std::string>& warnings) override;
  absl::Status rewrite(const Keyed& records) override;
  bool put(const std::string& key, const std::string& record) override;
  bool sync() override { return true; }
  const std::string& where() const override { return where_; }

 private:
  std::map<std::string, std::string> records_;  // by key
  std::vector<std::string> order_;              // the keys, in the order of their first put
  std::string where_ = "memory";
};

}  // namespace unisched::runtime
