// A journal file: a header that marks it, then records that each carry a marker, a length and a
// checksum, so damage is found, located and stepped over instead of ending the read.
//
//   header:  "unisched journal v1\n" (20 bytes)
//   record:  marker 0xA5 0x4A 0x52 0x5A ("\xA5JRZ") | length (u32 LE) | CRC-32 (u32 LE) of the
//            length bytes and the payload | payload (at most kMaxJournalRecord bytes)
//
// Reading classifies what is not an intact record: damage followed by intact records (reported
// with its offset; the caller decides whether to skip it), and a torn tail (damage with no
// intact record after it: the end of a write that never finished).
#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/latency_histogram.hpp"

namespace unisched::runtime {

inline constexpr std::string_view kJournalHeader = "unisched journal v1\n";
inline constexpr uint32_t kMaxJournalRecord = 64 * 1024 * 1024;

/// A stretch of bytes that holds no intact record.
struct JournalDamage {
  uint64_t offset = 0;
  uint64_t bytes = 0;
};

struct JournalContents {
  std::vector<std::string> records;        ///< intact payloads, in file order
  std::vector<JournalDamage> damaged;      ///< damage with intact records after it
  std::optional<JournalDamage> torn_tail;  ///< damage at the end, with no record after it
  uint64_t intact_end = 0;                 ///< where the file ends once the torn tail is cut
};

/// One record's bytes, as appended to a journal.
std::string encode_journal_record(std::string_view payload);

/// Parses a journal's bytes; InvalidArgument when they do not begin with the header.
absl::StatusOr<JournalContents> parse_journal(std::string_view bytes);

/// OK when `path` can be a journal: missing in an existing folder, empty, or a regular file that
/// begins with the header. Checked before the journal's lock is taken, so that a mistaken path
/// (a README, a folder) gets no lock file beside it.
absl::Status check_journal_file(const std::string& path);

/// Reads the journal at `path`: a missing or empty file reads as an empty journal;
/// FailedPrecondition when check_journal_file refuses it (it is left untouched); another
/// error when it cannot be read (no permission).
absl::StatusOr<JournalContents> read_journal(const std::string& path);

/// Replaces `path` with a journal holding `records`: written beside it, synced, then renamed
/// over it, so a crash leaves either the old journal or the new one.
absl::Status rewrite_journal(const std::string& path, const std::vector<std::string>& records);

class JournalAppender;

/// A journal read at start, made compact: replaced by `records` (rewrite_journal), then opened
/// for appending.
absl::StatusOr<JournalAppender> compact_journal(const std::string& path,
                                                const std::vector<std::string>& records);

/// Appends records to an existing journal, each flushed to the operating system before
/// append() returns; sync() makes what was appended durable (on disk, surviving a power cut),
/// and is called before anything appended is promised to anyone.
class JournalAppender {
 public:
  static absl::StatusOr<JournalAppender> open(const std::string& path);
  JournalAppender(JournalAppender&& other) noexcept;
  JournalAppender& operator=(JournalAppender&& other) noexcept;
  JournalAppender(const JournalAppender&) = delete;
  JournalAppender& operator=(const JournalAppender&) = delete;
  ~JournalAppender();

  absl::Status append(std::string_view payload);
  absl::Status sync();

 private:
  JournalAppender(std::FILE* file, std::string path) : file_(file), path_(std::move(path)) {}
  std::FILE* file_ = nullptr;
  std::string path_;
};

/// What every journal of this process appended and synced, for its metrics.
struct JournalStats {
  std::atomic<uint64_t> appends{0};
  std::atomic<uint64_t> appended_bytes{0};
  LatencyHistogram syncs;  ///< fsync latencies
};
const JournalStats& journal_stats();

/// "offset 1234 (56 bytes)", for messages about damage.
std::string describe(const JournalDamage& damage);

}  // namespace unisched::runtime
