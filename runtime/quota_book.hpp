// The hub's declarations, durable beside the request journal: quota definitions in
// "<journal>.quotas" (the last per queue wins) and applied cluster profiles in
// "<journal>.profiles" (the last per cluster wins). Quota usage is not kept here: it is rebuilt
// from the request journal's decisions (RequestBook::quota_holdings), so it is never counted
// twice.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "messages/unisched.pb.h"
#include "model/scheduling_quota.hpp"
#include "runtime/keyed_book.hpp"

namespace unisched::runtime {

/// The ledger's form of a validated quota: cpu and extended resources in milli-units, memory in
/// bytes; `manifest` is its canonical text.
v1::QuotaDefinition quota_definition(const model::SchedulingQuota& quota,
                                     const std::string& manifest);

class QuotaBook : public KeyedBook<v1::QuotaDefinition> {
 public:
  /// `store` null: quotas survive no restart.
  explicit QuotaBook(std::shared_ptr<RecordStore> store);
  /// The same in the journal file `journal_path`; empty: no store.
  explicit QuotaBook(const std::string& journal_path = {});

  std::vector<v1::QuotaDefinition> definitions() const { return values(); }
};

/// The cluster profiles applied at the hub ("<journal>.profiles"), as the registrations the hub
/// lists before their agents join.
class ProfileBook : public KeyedBook<v1::ClusterRegistration> {
 public:
  /// `store` null: applied profiles survive no restart.
  explicit ProfileBook(std::shared_ptr<RecordStore> store);
  /// The same in the journal file `journal_path`; empty: no store.
  explicit ProfileBook(const std::string& journal_path = {});
};

}  // namespace unisched::runtime
