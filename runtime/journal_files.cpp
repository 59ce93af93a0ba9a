#include "runtime/journal_files.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "runtime/journal.hpp"

namespace unisched::runtime {
namespace {

std::string errno_text() {
  return std::strerror(errno);
}

/// What the lock file says of its holder: "pid N", or "another process" when it says nothing.
std::string holder_of(int descriptor) {
  char text[32] = {};
  const ssize_t length = ::pread(descriptor, text, sizeof text - 1, 0);
  std::string pid(text, length > 0 ? static_cast<size_t>(length) : 0);
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) {
    pid.pop_back();
  }
  const bool digits = !pid.empty() && pid.find_first_not_of("0123456789") == std::string::npos;
  return digits ? "pid " + pid : "another process";
}

}  // namespace

absl::StatusOr<std::string> resolve_journal_path(const std::string& path) {
  struct stat link;
  if (::lstat(path.c_str(), &link) != 0 || !S_ISLNK(link.st_mode)) {
    return path;
  }
  std::error_code error;
  const std::filesystem::path target = std::filesystem::canonical(path, error);
  if (error) {
    return absl::FailedPreconditionError(path + " is a symlink whose target cannot be used (" +
                                         error.message() + "); point it at a file or remove it");
  }
  return target.string();
}

absl::Status settle_journal_path(std::string& path) {
  const auto target = resolve_journal_path(path);
  if (!target.ok()) {
    return target.status();
  }
  path = *target;
  return check_journal_file(path);
}

absl::StatusOr<JournalLock> JournalLock::acquire(const std::string& journal_path) {
  const std::string lock_path = journal_path + ".lock";
  // O_NOFOLLOW: a symlink planted at the lock's name is refused, never truncated through.
  const int descriptor =
      ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, S_IRUSR | S_IWUSR);
  if (descriptor < 0) {
    return absl::FailedPreconditionError("cannot open the lock " + lock_path + ": " + errno_text());
  }
  if (::flock(descriptor, LOCK_EX | LOCK_NB) != 0) {
    const bool held = errno == EWOULDBLOCK;
    const std::string why = held ? holder_of(descriptor) : errno_text();
    ::close(descriptor);
    if (!held) {
      return absl::FailedPreconditionError("cannot lock " + lock_path + ": " + why);
    }
    return absl::FailedPreconditionError(
        journal_path + " is in use by " + why + " (it holds " + lock_path +
        "); two hubs on one journal would lose acknowledged work: stop that hub first");
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(descriptor, 0) != 0 ||
      ::pwrite(descriptor, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    const std::string why = errno_text();
    ::close(descriptor);
    return absl::FailedPreconditionError("cannot write " + lock_path + ": " + why);
  }
  return JournalLock(descriptor);
}

JournalLock::JournalLock(JournalLock&& other) noexcept
    : descriptor_(std::exchange(other.descriptor_, -1)) {}

JournalLock& JournalLock::operator=(JournalLock&& other) noexcept {
  std::swap(descriptor_, other.descriptor_);
  return *this;
}

JournalLock::~JournalLock() {
  if (descriptor_ >= 0) {
    ::close(descriptor_);  // closing the last descriptor releases the flock
  }
}

}  // namespace unisched::runtime
