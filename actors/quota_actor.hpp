// The QuotaActor: one per hub, a thin shell over QuotaAdmission (the ledger and the work waiting
// for budget). Schedulers send it their takes first in each commit round (the clusters' commits
// follow only once the budget is taken), and their releases; ClusterActors' finished work
// reaches it through the hub (or directly in a single process). It may live in another process
// than the clusters' ClusterActors: it is a typed actor reached over BASP like any other.
#pragma once

#include <caf/fwd.hpp>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "actors/quota_interface.hpp"
#include "cores/quota_ledger.hpp"

namespace unisched::actors {

/// One change of the ledger as an observer sees it: placements that took budget, holdings
/// asked to be given back (unknown ones included), and the queues with work waiting for budget
/// after it (whether the budget is contended: fair shares are promised only then).
struct QuotaLedgerEvent {
  std::string queue;
  std::vector<v1::QuotaPlacement> taken;
  std::vector<std::string> released;
  std::set<std::string> waiting_queues;
};

struct QuotaActorSettings {
  /// Called after every take and release (tests check limits with a ledger of their own).
  std::function<void(const QuotaLedgerEvent&)> observer;
  /// Work of a named queue with no quota waits for one instead of being placed unlimited.
  bool queues_require_quota = false;
};

/// The ledger's form of a quota definition.
QuotaSpec quota_spec_of(const v1::QuotaDefinition& definition);

QuotaActor spawn_quota_actor(caf::actor_system& system, const QuotaActorSettings& settings = {});

}  // namespace unisched::actors
