// How `unisched get quotas` and `describe quota` show the ledger: amounts in the units a quota
// is written in (cpu and extended resources in cores or units, memory in bytes with a binary
// suffix), and the same as JSON. Also used by `unisched run`'s per-tenant summary.
#pragma once

#include <cstdint>
#include <string>

#include "messages/unisched.pb.h"
#include "runtime/json_report.hpp"

namespace unisched::cli {

/// One row per quota and resource: NAME QUEUE COHORT WEIGHT RESOURCE HARD USED BORROWED LENT
/// PENDING (and the waiting requests).
void print_quota_table(const v1::QuotaList& list);

/// The list as JSON: every quota with its amounts by resource, as quantities.
runtime::Json quotas_json(const v1::QuotaList& list);

/// One quota in detail, with its caps and manifest.
void print_quota_detail(const v1::QuotaStatus& status);

}  // namespace unisched::cli
