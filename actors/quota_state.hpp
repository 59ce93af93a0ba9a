// The quota accounting core (seed 3.2), plain C++ like ClusterState: each queue's budget over
// cpu, memory and any extended resource, what its placements hold, and cohorts whose members
// lend their unused budget to each other, as Kueue's ClusterQueues do. A quota is shared state
// like a cluster's view, so it gets the same treatment: a revision, and commits by
// compare-and-set on it, all or nothing (a gang takes quota for every replica or none), with
// release idempotent (a refused or timed-out placement gives its quota back once).
//
// Borrowing, by Kueue's rule: a member keeps `hard - lendingLimit` for itself and puts
// `lendingLimit` (default: all of `hard`) into its cohort's pool; what any member uses beyond
// its kept part comes out of the pool; a member may use at most `hard + borrowingLimit`
// (default: no limit beyond the pool).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace unisched::actors {

/// Amounts by resource name, in the resource's base unit: cpu in milli-cores, memory in bytes,
/// extended resources ("nvidia.com/gpu") in units.
using ResourceAmounts = std::map<std::string, int64_t>;

struct QuotaSpec {
  std::string name;    ///< the quota's metadata.name
  std::string queue;   ///< the requests it covers: those whose queue is this
  std::string cohort;  ///< empty: lends nothing and borrows nothing
  int64_t weight = 1;  ///< fair-sharing weight within the cohort
  ResourceAmounts hard;
  std::optional<ResourceAmounts> borrowing_limit;  ///< per resource; absent: up to the pool
  std::optional<ResourceAmounts> lending_limit;    ///< per resource; absent: all of `hard`
};

/// One request's take of its queue's budget: what each of its placements takes.
struct QuotaCommit {
  std::string queue;
  std::map<std::string, ResourceAmounts> placements;  ///< by placement id
  uint64_t revision = 0;  ///< of the quota state the scheduler decided on
};

enum class QuotaCommitStatus { Accepted, Conflict, OverQuota };

struct QuotaCommitOutcome {
  QuotaCommitStatus status = QuotaCommitStatus::Accepted;
  std::string reason;     ///< for OverQuota: the quota, resource and amounts
  uint64_t revision = 0;  ///< after the commit
};

/// What a queue holds of each resource, and how much of it is borrowed.
struct QuotaUsage {
  ResourceAmounts used;
  ResourceAmounts borrowed;  ///< used beyond `hard`
};

class QuotaState {
 public:
  /// Adds or replaces a quota (its queue's usage is kept). Bumps the revision.
  void put(QuotaSpec spec);

  /// Whether `queue` may take `demand` now; nullopt when it may, else why not ("quota team-a:
  /// nvidia.com/gpu: 66 wanted, 64 hard, 0 borrowable in cohort research"). A queue with no
  /// quota is not limited.
  std::optional<std::string> refusal(const std::string& queue, const ResourceAmounts& demand) const;

  /// Takes the quota, all or nothing: Conflict when `revision` is not the current one (decide
  /// again), OverQuota when it does not fit, Accepted otherwise (the revision moves on).
  QuotaCommitOutcome commit(const QuotaCommit& commit);

  /// Gives back what these placements hold; unknown ones (released already) are ignored.
  /// Returns whether anything was given back.
  bool release(const std::vector<std::string>& placement_ids);

  QuotaUsage usage(const std::string& queue) const;
  const std::map<std::string, QuotaSpec>& quotas() const { return quotas_; }
  uint64_t revision() const { return revision_; }

  /// The queues in the order dominant resource fairness serves them: lowest dominant share
  /// (used / hard, over the resources of its quota) divided by weight first; ties by name.
  std::vector<std::string> fair_order(const std::set<std::string>& queues) const;

 private:
  struct Holding {
    std::string queue;
    ResourceAmounts amounts;
  };

  static ResourceAmounts total(const QuotaCommit& commit);

  const QuotaSpec* quota_of(const std::string& queue) const;
  int64_t used(const std::string& queue, const std::string& resource) const;
  std::optional<std::string> cohort_refusal(const QuotaSpec& quota, const std::string& resource,
                                            int64_t wanted) const;

  std::map<std::string, QuotaSpec> quotas_;      // by queue
  std::map<std::string, ResourceAmounts> used_;  // by queue
  std::map<std::string, Holding> holdings_;      // by placement id
  uint64_t revision_ = 0;
};

}  // namespace unisched::actors
