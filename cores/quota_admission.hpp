// Quota admission, plain C++: the ledger (QuotaLedger) and the work waiting for budget, served by
// weighted dominant resource fairness. The QuotaActor is a thin shell around one.
//
// Work over its budget waits (phase QUEUED) instead of failing. When budget comes back (work
// finished, a placement was refused or released, a quota grew), waiting work is admitted in
// fair order: the queue with the lowest weighted dominant share first, within a queue by
// priority, then arrival. Admission holds the work's demand under "<work>#admitted", so the
// budget cannot be taken by others while its scheduler decides where it goes; its take replaces
// the hold in one step. Work that is not waiting never overtakes waiting work of its cohort (it
// queues behind it), and when the most deserving queue's head waits for lent budget, nothing
// else of its cohort is admitted before it: a large request is not starved by small ones.
// There is no preemption: budget lent out returns only as its borrowers finish.
//
// Leases take the ledger out of the commit round while a queue is far from its limits. A take
// of a queue whose quota has no caps, while nobody of its cohort waits, may come back with a
// lease: a slice of the headroom (up to 16 such takes, never more than a quarter of what is
// left) held for that scheduler, which then takes from it on its own and tells the ledger after
// the fact (use_lease). The lease is budget held like any placement, so no limit can be passed
// through it. As soon as work of the cohort has to wait, or the quota changes, the ledger asks
// for its leases back (revocations); it keeps holding each until its scheduler gives it back,
// after the takes it already sent, so every take from a lease finds its budget there.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cores/lease_holders.hpp"
#include "cores/quota_ledger.hpp"
#include "cores/quota_waiting_line.hpp"

namespace unisched::actors {

/// What the actor carries out after a call: each call of the admission returns these.
struct QuotaEffects {
  /// Waiting work now admitted (its demand held for it), in admission order: its scheduler is
  /// told to decide it.
  std::vector<std::string> admitted;
  /// Leases to ask back of their holders, each once.
  std::vector<QuotaRevocation> revocations;
};

struct QuotaTakeResult {
  bool taken = false;
  bool refused = false;  ///< not taken and not waiting: a placement id already holds quota
  std::string reason;    ///< why it waits: the quota and resource, or the work it waits behind
  std::optional<QuotaLease> lease;  ///< granted with the take
  /// Other work admitted meanwhile (never the work itself: first in line and fitting, it takes
  /// its budget at once), and leases to ask back.
  QuotaEffects effects;
};

class QuotaAdmission {
 public:
  static std::string hold_id(const std::string& work_id) { return work_id + "#admitted"; }

  /// Adds or replaces a quota; waiting work it now lets in is admitted.
  QuotaEffects put(QuotaSpec spec);

  /// Takes the budget now (replacing the work's admission hold), or queues the work; refuses
  /// a take naming a placement that holds quota already (ids are unique per request). When
  /// taken and `holder` (a scheduler) is named, a lease for it if the queue is far from its
  /// limits, nobody of its cohort waits and the holder has none of the queue yet.
  QuotaTakeResult take(const QuotaTake& take, const std::string& holder = {});

  /// Moves a take out of its holder's lease. When the lease cannot cover it (a holder that
  /// miscounted: never in this protocol), the take is held anyway, limits unchecked, since its
  /// work was committed already; the reason is returned.
  std::optional<std::string> use_lease(const std::string& lease_id, const QuotaTake& take);

  /// Gives back the leases of a holder that is gone.
  QuotaEffects holder_gone(const std::string& holder);

  /// Gives back what these holdings hold, then admits waiting work in fair order.
  QuotaEffects release(const std::vector<std::string>& ids);

  /// The work no longer waits (its scheduler gave it up); its hold, if any, is given back.
  QuotaEffects withdraw(const std::string& work_id);

  /// Holds what decided work held before a restart, limits unchecked (it runs already).
  void restore(const QuotaCommit& commit) { ledger_.restore(commit); }

  /// See QuotaLedger::set_queues_require_quota.
  void set_queues_require_quota(bool required) { ledger_.set_queues_require_quota(required); }

  /// The work waiting for budget now.
  const QuotaWaitingLine& line() const { return line_; }
  const QuotaLedger& ledger() const { return ledger_; }

 private:
  /// The cohort's name, or the queue's own name when it has none: who waits behind whom.
  std::string group_of(const std::string& queue) const;
  void enqueue(const QuotaTake& take);
  QuotaTakeResult take_or_wait(const QuotaTake& take);
  /// Admits waiting work in fair order, into effects_.
  void admit();
  /// The work of `group` to admit next: the one kept in line, or the head of the most deserving
  /// queue that may take more.
  std::optional<std::string> next_in(const std::string& group) const;
  /// Admits that work if it fits; false when there is none or it does not fit yet.
  bool admit_one(const std::string& group);
  /// Whether any work of the queue's group waits.
  bool group_waits(const std::string& group) const;
  std::optional<QuotaLease> offer_lease(const QuotaTake& take, const std::string& holder);
  /// Asks back every lease of the group's queues (once each).
  void revoke_leases(const std::string& group);

  QuotaLedger ledger_;
  QuotaWaitingLine line_;
  std::map<std::string, std::string> reserved_;  // group -> work first in line that did not fit
  LeaseHolders leases_;
  QuotaEffects effects_;  // what the call under way leaves for the actor
};

}  // namespace unisched::actors
