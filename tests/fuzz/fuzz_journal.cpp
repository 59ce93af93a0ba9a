// The journal reader (runtime/journal), as the hub reads its file after a crash: whatever the
// bytes, damage and a torn tail are located within them in order, and the intact records,
// written again, read back as exactly those records with no damage.
#include "runtime/journal.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace runtime = unisched::runtime;
using unisched::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes = unisched::fuzz::as_text(data, size);
  const auto contents = runtime::parse_journal(bytes);
  if (!contents.ok())
    return 0;
  check(contents->intact_end <= size, "the intact part lies within the bytes");
  uint64_t after = runtime::kJournalHeader.size();
  for (const auto& damage : contents->damaged) {
    check(damage.bytes > 0 && damage.offset >= after, "damage is located in order",
          runtime::describe(damage));
    after = damage.offset + damage.bytes;
  }
  check(after <= size, "damage lies within the bytes");
  if (contents->torn_tail) {
    check(contents->torn_tail->offset >= after &&
              contents->torn_tail->offset + contents->torn_tail->bytes == size,
          "a torn tail runs to the end", runtime::describe(*contents->torn_tail));
    check(contents->intact_end == contents->torn_tail->offset, "the cut is where the tail begins");
  }
  std::string rewritten(runtime::kJournalHeader);
  for (const std::string& record : contents->records) {
    rewritten += runtime::encode_journal_record(record);
  }
  const auto again = runtime::parse_journal(rewritten);
  check(again.ok() && again->records == contents->records && again->damaged.empty() &&
            !again->torn_tail && again->intact_end == rewritten.size(),
        "intact records written again read back whole");
  return 0;
}
