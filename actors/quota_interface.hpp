// The quota ledger's protocol, checked by the compiler (actors/quota_actor.hpp says more).
#pragma once

#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "messages/caf_types.hpp"

namespace unisched::actors {

/// Whoever follows placed work to its end (the hub, the ledger).
///   FinishedPlacements     these placements' work ended on their cluster
using PlacementListenerActor = caf::typed_actor<caf::reacts_to<v1::FinishedPlacements>>;

/// A scheduler, as the ledger sees it: work that waited for quota is admitted; a lease is
/// wanted back.
using AdmissionListenerActor =
    caf::typed_actor<caf::reacts_to<v1::QuotaAdmission>, caf::reacts_to<v1::QuotaLeaseRevoke>>;

/// One per hub: every queue's budget and what holds it.
///   QuotaTakeRequest   -> QuotaTakeReply: taken now (all or nothing; maybe with a lease), or
///                         queued until admitted
///   QuotaLeaseUse         a take the scheduler made from its lease
///   QuotaRelease          gives back holdings (idempotent); withdraws work that waited
///   FinishedPlacements    the work ended: its holdings are given back
///   QuotaDefinition    -> QuotaStatus: adds or replaces a quota (its usage is kept)
///   (quotas)           -> QuotaList: every quota with its usage and waiting demand
///   QuotaRestore          the ledger as rebuilt from the journal after a restart
using QuotaActor = PlacementListenerActor::extend<
    caf::replies_to<v1::QuotaTakeRequest>::with<v1::QuotaTakeReply>,
    caf::reacts_to<v1::QuotaLeaseUse>, caf::reacts_to<v1::QuotaRelease>,
    caf::replies_to<v1::QuotaDefinition>::with<v1::QuotaStatus>,
    caf::replies_to<atoms::quotas_atom>::with<v1::QuotaList>, caf::reacts_to<v1::QuotaRestore>>;

}  // namespace unisched::actors
