// The local journal as a RecordStore: one file of checksummed records (runtime/journal.hpp),
// locked against a second hub, compacted at every start (written beside, then renamed over),
// each put flushed to the operating system and made durable by sync(). The key of a record is
// inside it: the file holds records as they are.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runtime/journal.hpp"
#include "runtime/journal_files.hpp"
#include "runtime/record_store.hpp"

namespace unisched::runtime {

class JournalStore : public RecordStore {
 public:
  explicit JournalStore(std::string path) : path_(std::move(path)) {}

  absl::StatusOr<std::vector<std::string>> open(bool skip_damaged,
                                                std::vector<std::string>& warnings) override;
  absl::Status rewrite(const Keyed& records) override;
  bool put(const std::string& key, const std::string& record) override;
  bool sync() override;
  /// The journal's path (a symlink's target once opened).
  const std::string& where() const override { return path_; }

 private:
  absl::StatusOr<std::vector<std::string>> read_locked(bool skip_damaged,
                                                       std::vector<std::string>& warnings);

  std::string path_;
  std::optional<JournalLock> lock_;
  std::optional<JournalAppender> appender_;
  bool failed_ = false;
};

}  // namespace unisched::runtime
