// What keeps a journal's files safe from a second hub and from what else lies in its folder:
// an exclusive lock beside the journal, and the journal's real path when it is given as a
// symlink. Plain C++ over POSIX; the request book takes both before it reads a byte.
#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include <string>

namespace unisched::runtime {

/// The file `path` names: `path` itself, or the file a symlink at `path` leads to (so a rewrite
/// replaces the target and leaves the link in place). FailedPrecondition for a dangling link.
absl::StatusOr<std::string> resolve_journal_path(const std::string& path);

/// Sets `path` to the file a journal given as `path` is (resolve_journal_path) and checks that
/// it can be a journal (check_journal_file); the error that stops the start otherwise.
absl::Status settle_journal_path(std::string& path);

/// An exclusive flock on "<journal>.lock", which holds the holder's pid. The lock file is never
/// renamed (compaction renames "<journal>.new" over the journal itself, so a lock on the journal
/// would not hold) and never removed. Released when the process ends or this is destroyed.
class JournalLock {
 public:
  /// The lock, or FailedPrecondition naming the pid that holds it.
  static absl::StatusOr<JournalLock> acquire(const std::string& journal_path);
  JournalLock(JournalLock&& other) noexcept;
  JournalLock& operator=(JournalLock&& other) noexcept;
  JournalLock(const JournalLock&) = delete;
  JournalLock& operator=(const JournalLock&) = delete;
  ~JournalLock();

 private:
  explicit JournalLock(int descriptor) : descriptor_(descriptor) {}
  int descriptor_ = -1;
};

}  // namespace unisched::runtime
