// Declarations that must survive a restart, one protobuf message per record of a journal
// (runtime/journal.hpp), the last record per key winning: the hub's quota definitions (by
// queue) and applied cluster profiles (by cluster id). Recovery rewrites the file compactly
// (write-new-then-rename), and a record is synced to disk before it is reported recorded.
// Plain C++; the hub actor owns them.
#pragma once

#include <absl/status/status.h>

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/journal.hpp"
#include "runtime/journal_files.hpp"

namespace unisched::runtime {

template <class Message>
class KeyedJournal {
 public:
  using KeyOf = std::string (*)(const Message&);

  /// `journal_path` empty: nothing survives a restart. `what` names a record in messages
  /// ("quota definition"); `remedy` says what to do when the file is damaged.
  KeyedJournal(std::string journal_path, KeyOf key_of, std::string what, std::string remedy)
      : journal_path_(std::move(journal_path)),
        key_of_(key_of),
        what_(std::move(what)),
        remedy_(std::move(remedy)) {}

  /// Reads the journal, rewrites it compactly and opens it for appending; an error when it is
  /// damaged or cannot be read or written (the caller must not start then).
  absl::Status recover(std::vector<std::string>& warnings) {
    if (journal_path_.empty()) {
      return absl::OkStatus();
    }
    // No lock of its own: the request journal's, taken first, covers the files beside it.
    if (absl::Status settled = settle_journal_path(journal_path_); !settled.ok()) {
      return settled;
    }
    const auto contents = read_journal(journal_path_);
    if (!contents.ok()) {
      return contents.status();
    }
    if (!contents->damaged.empty()) {
      return absl::DataLossError(journal_path_ +
                                 ": damaged records followed by intact ones; refusing to start (" +
                                 remedy_ + ")");
    }
    if (contents->torn_tail) {
      warnings.push_back(journal_path_ + ": the last write did not finish; " +
                         describe(*contents->torn_tail) + " cut");
    }
    for (const std::string& bytes : contents->records) {
      Message message;
      if (!message.ParseFromString(bytes) || key_of_(message).empty()) {
        return absl::DataLossError(journal_path_ + ": an intact record is not a " + what_ +
                                   "; refusing to start");
      }
      by_key_[key_of_(message)] = std::move(message);
    }
    std::vector<std::string> compact;
    for (const auto& [key, message] : by_key_) {
      compact.push_back(message.SerializeAsString());
    }
    auto appender = compact_journal(journal_path_, compact);
    if (!appender.ok()) {
      return appender.status();
    }
    journal_.emplace(std::move(*appender));
    return absl::OkStatus();
  }

  /// Records `message`, on disk before this returns; false when the journal cannot be written
  /// or synced (it is then not recorded).
  bool record(const Message& message) {
    if (!journal_path_.empty() &&
        (!journal_ || !journal_->append(message.SerializeAsString()).ok() ||
         !journal_->sync().ok())) {
      return false;
    }
    by_key_[key_of_(message)] = message;
    return true;
  }

  std::vector<Message> values() const {
    std::vector<Message> out;
    for (const auto& [key, message] : by_key_) {
      out.push_back(message);
    }
    return out;
  }

 private:
  std::string journal_path_;
  KeyOf key_of_;
  std::string what_;
  std::string remedy_;
  std::optional<JournalAppender> journal_;
  std::map<std::string, Message> by_key_;
};

}  // namespace unisched::runtime
