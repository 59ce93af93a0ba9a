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
  /// What the request journal tells an operator to do about damage.
  static constexpr const char* kSkipDamaged =
      "keep a copy of the file, then start with --journal-skip-damaged to drop the damaged "
      "records and keep the intact ones";

  /// `remedy`: what to do when damage stops the start. `lock`: whether the store takes the
  /// journal's lock (files beside the request journal do without: its lock covers them).
  explicit JournalStore(std::string path, std::string remedy = kSkipDamaged, bool lock = true)
      : path_(std::move(path)), remedy_(std::move(remedy)), lock_wanted_(lock) {}

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
  std::string remedy_;
  bool lock_wanted_;
  std::optional<JournalLock> lock_;
  std::optional<JournalAppender> appender_;
  bool failed_ = false;
};

}  // namespace unisched::runtime
