// The quota accounting core (design document 3.2), plain C++ like ClusterCore: each queue's budget
// over cpu, memory and any extended resource, what its placements hold, and cohorts whose members
// lend their unused budget to each other, as Kueue's ClusterQueues do.
//
// A take is a conditional increment, checked and applied in one step, all or nothing (a gang
// takes quota for every replica or none). It compares what the decision relied on, the headroom
// under each limit, rather than a revision of the whole ledger: racing schedulers cannot pass a
// limit together, and takes of different queues never conflict (as node-level commits compare
// only the nodes they touch). The revision still counts every change, for readers.
// Release is idempotent (a refused or timed-out placement gives its quota back once).
//
// Borrowing, by Kueue's rule: a member keeps `hard - lendingLimit` for itself and puts
// `lendingLimit` (default: all of `hard`) into its cohort's pool; what any member uses beyond
// its kept part comes out of the pool; a member may use at most `hard + borrowingLimit`
// (default: no limit beyond the pool). Caps bound what placements matching a cluster, region,
// zone or accelerator model hold; they are never borrowed.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cores/quota_amounts.hpp"
#include "cores/quota_holdings.hpp"
#include "model/int128.hpp"

namespace unisched::actors {

/// An amount as people write it: "12", "0.5", "1073741824 bytes".
std::string amount_text(const std::string& resource, model::int128_t amount);

/// A budget inside the budget: at most `hard` in placements matching every selector given.
struct QuotaCapSpec {
  std::string cluster;
  std::string region;
  std::string zone;
  std::string model;  ///< accelerator model, matched as requests match models
  ResourceAmounts hard;
};

struct QuotaSpec {
  std::string name;    ///< the quota's metadata.name
  std::string queue;   ///< the requests it covers: those whose queue is this
  std::string cohort;  ///< empty: lends nothing and borrows nothing
  int64_t weight = 1;  ///< fair-sharing weight within the cohort
  ResourceAmounts hard;
  std::optional<ResourceAmounts> borrowing_limit;  ///< per resource; absent: up to the pool
  std::optional<ResourceAmounts> lending_limit;    ///< per resource; absent: all of `hard`
  std::vector<QuotaCapSpec> caps;
};

struct QuotaRefusal {
  std::string reason;  ///< names the quota, the resource and the amounts
};

/// What a queue holds of each resource, how much of it is borrowed, and how much of its
/// lendable budget others use now.
struct QuotaUsage {
  ResourceAmounts used;      ///< by placements
  ResourceAmounts leased;    ///< held for schedulers' leases, not yet taken by placements
  ResourceAmounts borrowed;  ///< used or leased beyond `hard`
  ResourceAmounts lent;      ///< of its idle lendable budget, the part borrowers hold
};

class QuotaLedger {
 public:
  /// Adds or replaces a quota (its queue's usage is kept). Bumps the revision.
  void put(QuotaSpec spec);

  /// Whether a named queue with no quota may take anything: false (the default), it is not
  /// limited; true, its work waits until a quota for it is applied.
  void set_queues_require_quota(bool required) { queues_require_quota_ = required; }

  /// Whether `queue` may take `demand` more now (caps aside); nullopt when it may, else why
  /// not ("quota team-a: nvidia.com/gpu: 66 would be used, 64 hard"). A queue with no quota is
  /// not limited, unless quotas are required.
  std::optional<std::string> refusal(const std::string& queue, const ResourceAmounts& demand) const;

  /// Whether `demand` more would pass the queue's own limit (`hard`, plus `borrowingLimit` in a
  /// cohort): then no pool of lent budget can make it fit.
  bool over_own_limit(const std::string& queue, const ResourceAmounts& demand) const;

  /// Takes the quota if every limit holds afterwards, all or nothing; the refusal otherwise.
  std::optional<QuotaRefusal> commit(const QuotaCommit& commit);

  /// Holds what the commit's placements hold without checking limits (work that already runs,
  /// known from the journal after a restart); placements held already are left as they are.
  void restore(const QuotaCommit& commit);

  /// Holds `amounts` of the queue's budget as lease `id` (for one scheduler to take from without
  /// asking) if every limit holds afterwards; false, holding nothing, otherwise.
  bool lease(const std::string& id, const std::string& queue, const ResourceAmounts& amounts);

  /// Moves the commit's placements out of lease `id` in one step, limits unchecked (the lease
  /// held their budget): false, changing nothing, when it is no lease of the commit's queue,
  /// does not cover them on a resource it holds, or a placement holds quota already.
  bool take_from_lease(const std::string& id, const QuotaCommit& commit);

  /// Gives back what these holdings hold; unknown ones (released already) are ignored.
  /// Returns whether anything was given back.
  bool release(const std::vector<std::string>& ids);

  QuotaUsage usage(const std::string& queue) const;
  const QuotaSpec* quota_of(const std::string& queue) const;
  bool holds(const std::string& id) const { return holdings_.holds(id); }
  /// The holdings whose ids start with `prefix` (an attempt's placements: "<key>/").
  std::vector<std::string> held_under(const std::string& prefix) const {
    return holdings_.ids_under(prefix);
  }
  /// Whether placement `id` holds quota on `cluster` (only that cluster may say it ended).
  bool holds_on(const std::string& id, const std::string& cluster) const {
    const QuotaHoldings::Holding* found = holdings_.find(id);
    return found != nullptr && found->placement.cluster == cluster;
  }
  uint64_t revision() const { return revision_; }

  /// The queue's weighted dominant share with `extra` more in use: the largest of used /
  /// capacity over its resources, the capacity being its cohort's pooled `hard` (or its own
  /// without a cohort), divided by its weight. Waiting work is served lowest share first, the
  /// share counted with the work's own demand (as weighted fair queueing orders by finish):
  /// counted without it, ties between a light queue's old work and a heavy queue's would go to
  /// the light queue every time.
  double weighted_share(const std::string& queue, const ResourceAmounts& extra = {}) const;

 private:
  std::optional<std::string> cohort_refusal(const QuotaSpec& quota, const std::string& resource,
                                            int64_t wanted) const;
  std::optional<std::string> cap_refusal(const QuotaSpec& quota, const QuotaPlacements& placements,
                                         const std::set<std::string>& replaced) const;

  std::map<std::string, QuotaSpec> quotas_;  // by queue
  QuotaHoldings holdings_;
  uint64_t revision_ = 0;
  bool queues_require_quota_ = false;
};

}  // namespace unisched::actors
