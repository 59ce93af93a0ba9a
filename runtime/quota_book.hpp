// The hub's quota definitions, durable beside the request journal ("<journal>.quotas", the same
// record format, one QuotaDefinition per record, the last per queue wins). Usage is not kept
// here: it is rebuilt from the request journal's decisions (RequestBook::quota_holdings), so
// it is never counted twice. Plain C++; the hub actor owns one.
#pragma once

#include <absl/status/status.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "messages/unisched.pb.h"
#include "model/scheduling_quota.hpp"
#include "runtime/journal.hpp"

namespace unisched::runtime {

/// The ledger's form of a validated quota: cpu and extended resources in milli-units, memory in
/// bytes; `manifest` is its canonical text.
v1::QuotaDefinition quota_definition(const model::SchedulingQuota& quota,
                                     const std::string& manifest);

class QuotaBook {
 public:
  /// `journal_path` empty: quotas survive no restart.
  explicit QuotaBook(std::string journal_path = {});

  /// Reads the quotas journal, rewrites it compactly and opens it for appending; an error when it
  /// is damaged or cannot be read or written (the caller must not start then).
  absl::Status recover(std::vector<std::string>& warnings);

  /// Records a definition; false when the journal cannot be written (it is then not in force).
  bool record(const v1::QuotaDefinition& definition);

  std::vector<v1::QuotaDefinition> definitions() const;

 private:
  std::string journal_path_;
  std::optional<JournalAppender> journal_;
  std::map<std::string, v1::QuotaDefinition> by_queue_;
};

}  // namespace unisched::runtime
