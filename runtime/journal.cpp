#include "runtime/journal.hpp"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace unisched::runtime {
namespace {

constexpr std::string_view kRecordMarker = "\xA5JRZ";
constexpr size_t kRecordHead = 12;  // marker, length, checksum

void put_u32(std::string& out, uint32_t value) {
  for (int shift = 0; shift < 32; shift += 8) {
    out.push_back(static_cast<char>((value >> shift) & 0xff));
  }
}

uint32_t get_u32(std::string_view bytes, size_t at) {
  uint32_t value = 0;
  for (int i = 3; i >= 0; --i) {
    value = (value << 8) | static_cast<unsigned char>(bytes[at + static_cast<size_t>(i)]);
  }
  return value;
}

uint32_t checksum(std::string_view length_bytes, std::string_view payload) {
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, reinterpret_cast<const Bytef*>(length_bytes.data()),
              static_cast<uInt>(length_bytes.size()));
  crc =
      crc32(crc, reinterpret_cast<const Bytef*>(payload.data()), static_cast<uInt>(payload.size()));
  return static_cast<uint32_t>(crc);
}

/// The intact record at `at`, as its payload; nullopt when there is none there.
std::optional<std::string_view> record_at(std::string_view bytes, size_t at) {
  if (bytes.size() - at < kRecordHead || bytes.substr(at, 4) != kRecordMarker) {
    return std::nullopt;
  }
  const uint32_t length = get_u32(bytes, at + 4);
  if (length > kMaxJournalRecord || bytes.size() - at - kRecordHead < length) {
    return std::nullopt;
  }
  const std::string_view payload = bytes.substr(at + kRecordHead, length);
  if (checksum(bytes.substr(at + 4, 4), payload) != get_u32(bytes, at + 8)) {
    return std::nullopt;
  }
  return payload;
}

/// The first offset after `from` where an intact record starts; npos when none does.
size_t next_record(std::string_view bytes, size_t from) {
  for (size_t at = bytes.find(kRecordMarker, from + 1); at != std::string_view::npos;
       at = bytes.find(kRecordMarker, at + 1)) {
    if (record_at(bytes, at)) {
      return at;
    }
  }
  return std::string_view::npos;
}

std::string system_error(const std::string& what, const std::string& path) {
  return what + " " + path + ": " + std::strerror(errno);
}

/// Why a file that is not a journal is refused (and never written).
absl::Status not_a_journal(const std::string& path, const absl::Status& why) {
  return absl::FailedPreconditionError(path + " is not a unisched journal (" +
                                       std::string(why.message()) + "); it is left as it is");
}

/// The permission bits of the file at `path`, to give its replacement; owner-only for a new one.
mode_t mode_of(const std::string& path) {
  struct stat existing;
  return ::stat(path.c_str(), &existing) == 0 ? existing.st_mode & 07777 : S_IRUSR | S_IWUSR;
}

/// Creates `path` for writing, only as a new regular file (never through a symlink planted at
/// its name), with `mode` whatever the umask. A regular file already there is what a write cut
/// short left (the caller holds the journal's lock, so no other hub is writing it): it is
/// removed. Anything else there is refused.
absl::StatusOr<int> create_beside(const std::string& path, mode_t mode) {
  constexpr int kFlags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
  int descriptor = ::open(path.c_str(), kFlags, mode);
  if (descriptor < 0 && errno == EEXIST) {
    struct stat found;
    if (::lstat(path.c_str(), &found) != 0 || !S_ISREG(found.st_mode)) {
      return absl::FailedPreconditionError(
          path +
          " exists and is not a regular file (a symlink or a folder?); refusing to write "
          "through it: remove it");
    }
    spdlog::warn("journal: removing {}, left by a rewrite that did not finish", path);
    if (::unlink(path.c_str()) == 0) {
      descriptor = ::open(path.c_str(), kFlags, mode);
    }
  }
  if (descriptor < 0) {
    return absl::PermissionDeniedError(system_error("cannot create", path));
  }
  if (::fchmod(descriptor, mode) != 0) {
    const std::string why = system_error("cannot set the mode of", path);
    ::close(descriptor);
    ::unlink(path.c_str());
    return absl::PermissionDeniedError(why);
  }
  return descriptor;
}

}  // namespace

std::string encode_journal_record(std::string_view payload) {
  std::string out(kRecordMarker);
  std::string length;
  put_u32(length, static_cast<uint32_t>(payload.size()));
  out += length;
  put_u32(out, checksum(length, payload));
  out.append(payload);
  return out;
}

absl::StatusOr<JournalContents> parse_journal(std::string_view bytes) {
  if (bytes.substr(0, kJournalHeader.size()) != kJournalHeader) {
    return absl::InvalidArgumentError("it does not begin with \"unisched journal v1\"");
  }
  JournalContents contents;
  size_t at = kJournalHeader.size();
  while (at < bytes.size()) {
    if (const auto payload = record_at(bytes, at)) {
      contents.records.emplace_back(*payload);
      at += kRecordHead + payload->size();
      continue;
    }
    const size_t next = next_record(bytes, at);
    if (next == std::string_view::npos) {
      contents.torn_tail = JournalDamage{at, bytes.size() - at};
      break;
    }
    contents.damaged.push_back(JournalDamage{at, next - at});
    at = next;
  }
  contents.intact_end = contents.torn_tail ? contents.torn_tail->offset : bytes.size();
  return contents;
}

absl::Status check_journal_file(const std::string& path) {
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (status.type() == std::filesystem::file_type::not_found) {
    const std::filesystem::path folder = std::filesystem::path(path).parent_path();
    if (!folder.empty() && !std::filesystem::is_directory(folder, error)) {
      return absl::FailedPreconditionError("the folder of " + path + " does not exist");
    }
    return absl::OkStatus();
  }
  if (status.type() != std::filesystem::file_type::regular) {
    return absl::FailedPreconditionError(path + " is not a regular file" +
                                         (error ? ": " + error.message() : std::string()));
  }
  std::ifstream in(path, std::ios::binary);
  std::string head(kJournalHeader.size(), '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  if (head.empty()) {
    return absl::OkStatus();
  }
  const auto parsed = parse_journal(head);
  return parsed.ok() ? absl::OkStatus() : not_a_journal(path, parsed.status());
}

absl::StatusOr<JournalContents> read_journal(const std::string& path) {
  if (absl::Status usable = check_journal_file(path); !usable.ok()) {
    return usable;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (!std::filesystem::exists(path)) {
      return JournalContents{};
    }
    return absl::PermissionDeniedError(system_error("cannot read", path));
  }
  std::ostringstream bytes;
  bytes << in.rdbuf();
  const std::string text = bytes.str();
  if (text.empty()) {
    return JournalContents{};
  }
  auto contents = parse_journal(text);
  if (!contents.ok()) {
    return not_a_journal(path, contents.status());
  }
  return contents;
}

absl::Status rewrite_journal(const std::string& path, const std::vector<std::string>& records) {
  const std::string temporary = path + ".new";
  auto descriptor = create_beside(temporary, mode_of(path));
  if (!descriptor.ok()) {
    return descriptor.status();
  }
  std::FILE* file = ::fdopen(*descriptor, "wb");
  if (file == nullptr) {
    ::close(*descriptor);
    std::remove(temporary.c_str());
    return absl::PermissionDeniedError(system_error("cannot write", temporary));
  }
  bool written =
      std::fwrite(kJournalHeader.data(), 1, kJournalHeader.size(), file) == kJournalHeader.size();
  for (const std::string& record : records) {
    const std::string bytes = encode_journal_record(record);
    written = written && std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  }
  written = written && std::fflush(file) == 0 && ::fsync(fileno(file)) == 0;
  const std::string failure = written ? std::string() : system_error("cannot write", temporary);
  std::fclose(file);
  if (!written) {
    std::remove(temporary.c_str());
    return absl::DataLossError(failure);
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string why = system_error("cannot replace", path);
    std::remove(temporary.c_str());
    return absl::PermissionDeniedError(why);
  }
  // The rename itself is durable once the directory is synced.
  const std::string directory = std::filesystem::path(path).parent_path().string();
  const int dir = ::open(directory.empty() ? "." : directory.c_str(), O_RDONLY | O_DIRECTORY);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  return absl::OkStatus();
}

absl::StatusOr<JournalAppender> JournalAppender::open(const std::string& path) {
  // O_NOFOLLOW: the path was resolved at start; a symlink put there since is not written through.
  const int descriptor = ::open(path.c_str(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
  std::FILE* file = descriptor < 0 ? nullptr : ::fdopen(descriptor, "ab");
  if (file == nullptr) {
    const std::string why = system_error("cannot append to", path);
    if (descriptor >= 0) {
      ::close(descriptor);
    }
    return absl::PermissionDeniedError(why);
  }
  return JournalAppender(file, path);
}

JournalAppender::JournalAppender(JournalAppender&& other) noexcept
    : file_(other.file_), path_(std::move(other.path_)) {
  other.file_ = nullptr;
}

JournalAppender& JournalAppender::operator=(JournalAppender&& other) noexcept {
  std::swap(file_, other.file_);
  std::swap(path_, other.path_);
  return *this;
}

JournalAppender::~JournalAppender() {
  if (file_ != nullptr) {
    std::fclose(file_);
  }
}

namespace {

JournalStats& mutable_journal_stats() {
  static JournalStats stats;
  return stats;
}

}  // namespace

const JournalStats& journal_stats() {
  return mutable_journal_stats();
}

absl::Status JournalAppender::append(std::string_view payload) {
  const std::string bytes = encode_journal_record(payload);
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size() ||
      std::fflush(file_) != 0) {
    return absl::DataLossError(system_error("cannot append to", path_));
  }
  JournalStats& stats = mutable_journal_stats();
  stats.appends.fetch_add(1, std::memory_order_relaxed);
  stats.appended_bytes.fetch_add(bytes.size(), std::memory_order_relaxed);
  return absl::OkStatus();
}

absl::Status JournalAppender::sync() {
  const auto start = std::chrono::steady_clock::now();
  if (std::fflush(file_) != 0 || ::fsync(fileno(file_)) != 0) {
    return absl::DataLossError(system_error("cannot sync", path_));
  }
  mutable_journal_stats().syncs.record(std::chrono::steady_clock::now() - start);
  return absl::OkStatus();
}

std::string describe(const JournalDamage& damage) {
  return "offset " + std::to_string(damage.offset) + " (" + std::to_string(damage.bytes) +
         " bytes)";
}

absl::StatusOr<JournalAppender> compact_journal(const std::string& path,
                                                const std::vector<std::string>& records) {
  if (absl::Status rewritten = rewrite_journal(path, records); !rewritten.ok()) {
    return rewritten;
  }
  return JournalAppender::open(path);
}

}  // namespace unisched::runtime
