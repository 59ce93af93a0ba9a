// What quota counts, and the one way a take is summed and charged against budget set aside:
// the ledger (QuotaLedger), its admission (QuotaAdmission) and every scheduler's leases
// (SchedulerLeases) count with these types and functions, so they cannot disagree on what a
// placement takes. Plain C++ (no CAF, no protobuf; quota_wire converts).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace unisched::actors {

/// Amounts by resource name: memory in bytes, everything else (cpu, GPU, nvidia.com/gpu) in
/// milli-units, so a share of a device is counted exactly.
using ResourceAmounts = std::map<std::string, int64_t>;

/// What one placement takes, and where (for the caps).
struct QuotaPlacement {
  ResourceAmounts amounts;
  std::string cluster;
  std::string region;
  std::string zone;
  std::string model;  ///< of the devices it takes; empty: none
};

/// Placements by placement id.
using QuotaPlacements = std::map<std::string, QuotaPlacement>;

/// One request's take of its queue's budget.
struct QuotaCommit {
  std::string queue;
  QuotaPlacements placements;
  /// Holdings this take replaces in the same step (an admission hold turning into placements).
  std::vector<std::string> replaces;
};

/// One request's (or replica's) take, as its scheduler sends it.
struct QuotaTake {
  std::string work_id;  ///< the work deciding; its hold is "<work_id>#admitted"
  int64_t priority = 0;
  QuotaCommit commit;
};

/// Budget held for one scheduler to take from without asking.
struct QuotaLease {
  std::string id;
  ResourceAmounts amounts;  ///< what is left of every resource the quota limits, even 0
};

/// A take a scheduler made from its lease, for the ledger to record after the fact.
struct QuotaLeaseUse {
  std::string lease_id;
  QuotaTake take;
};

/// Adds (or, with sign -1, takes away) `amounts`, each sum held at the ends of 64 bits rather
/// than wrapping: amounts fit 64 bits, sums of users' manifests need not (two of 7Ei memory).
void add_to(ResourceAmounts& sum, const ResourceAmounts& amounts, int64_t sign = 1);

/// What the placements take together.
ResourceAmounts demand_of(const QuotaPlacements& placements);

/// The amount of `resource` in `amounts`; `otherwise` when it names none.
int64_t amount_in(const ResourceAmounts& amounts, const std::string& resource,
                  int64_t otherwise = 0);

/// Charges `demand` to budget set aside (a lease): all or nothing, only when what is `left` of
/// every resource it holds covers the demand; resources it does not hold are not its to limit.
/// Returns whether it charged.
bool charge(ResourceAmounts& left, const ResourceAmounts& demand);

}  // namespace unisched::actors
