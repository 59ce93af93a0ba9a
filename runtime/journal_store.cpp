#include "runtime/journal_store.hpp"

#include <utility>

namespace unisched::runtime {

absl::StatusOr<std::vector<std::string>> JournalStore::open(bool skip_damaged,
                                                            std::vector<std::string>& warnings) {
  // The lock first: a second hub on this journal would rewrite it under the first.
  if (absl::Status settled = settle_journal_path(path_); !settled.ok()) {
    return settled;
  }
  if (lock_wanted_) {
    auto lock = JournalLock::acquire(path_);
    if (!lock.ok()) {
      return lock.status();
    }
    lock_.emplace(std::move(*lock));
  }
  auto records = read_locked(skip_damaged, warnings);
  if (!records.ok()) {
    lock_.reset();  // a store that did not open holds nothing
  }
  return records;
}

absl::StatusOr<std::vector<std::string>> JournalStore::read_locked(
    bool skip_damaged, std::vector<std::string>& warnings) {
  auto contents = read_journal(path_);
  if (!contents.ok()) {
    return contents.status();
  }
  if (!contents->damaged.empty()) {
    std::string where;
    for (const JournalDamage& damage : contents->damaged) {
      where += (where.empty() ? "" : ", ") + describe(damage);
    }
    const std::string found = path_ + ": damaged records at " + where +
                              ", followed by intact ones (" +
                              std::to_string(contents->records.size()) + " intact records in all)";
    if (!skip_damaged) {
      return absl::DataLossError(found + "; refusing to start: " + remedy_);
    }
    warnings.push_back(found + "; the damaged records are skipped (--journal-skip-damaged)");
  }
  if (contents->torn_tail) {
    warnings.push_back(path_ + ": the last write did not finish; " +
                       describe(*contents->torn_tail) + " cut after " +
                       std::to_string(contents->records.size()) + " intact records");
  }
  return std::move(contents->records);
}

absl::Status JournalStore::rewrite(const Keyed& records) {
  std::vector<std::string> bytes;
  bytes.reserve(records.size());
  for (const auto& [key, record] : records) {
    bytes.push_back(record);
  }
  auto appender = compact_journal(path_, bytes);
  if (!appender.ok()) {
    return appender.status();
  }
  appender_.emplace(std::move(*appender));
  return absl::OkStatus();
}

bool JournalStore::put(const std::string& /*key*/, const std::string& record) {
  if (failed_ || !appender_) {
    return false;
  }
  if (!appender_->append(record).ok()) {
    // A partly written record may follow; appending after it would bury it under intact ones.
    failed_ = true;
    return false;
  }
  return true;
}

bool JournalStore::sync() {
  if (failed_ || !appender_ || !appender_->sync().ok()) {
    failed_ = true;
    return false;
  }
  return true;
}

}  // namespace unisched::runtime
