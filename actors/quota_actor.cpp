#include "actors/quota_actor.hpp"

#include <spdlog/spdlog.h>
#include <caf/actor_cast.hpp>
#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include <map>

#include "actors/stray_errors.hpp"
#include "cores/quota_admission.hpp"
#include "cores/quota_wire.hpp"
#include "model/printable.hpp"

namespace unisched::actors {
namespace {

using namespace unisched::atoms;

struct QuotaActorState {
  QuotaAdmission admission;
  QuotaActorSettings settings;
  std::map<std::string, AdmissionListenerActor> waiting;     // work id -> its scheduler
  std::map<std::string, AdmissionListenerActor> schedulers;  // by holder key, watched
  std::map<std::string, v1::QuotaDefinition> definitions;    // by queue, as applied
  static inline const char* name = "quota";
};

using Self = QuotaActor::stateful_pointer<QuotaActorState>;

/// Carries out what the admission decided: the schedulers of admitted work are told that budget
/// is held for it, and the holders of leases the ledger wants back are asked for them.
void carry_out(Self self, const QuotaEffects& effects) {
  for (const std::string& work_id : effects.admitted) {
    const auto scheduler = self->state.waiting.find(work_id);
    if (scheduler == self->state.waiting.end()) {
      carry_out(self, self->state.admission.withdraw(work_id));  // nobody to tell: give it back
      continue;
    }
    v1::QuotaAdmission admission;
    admission.set_work_id(work_id);
    self->send(scheduler->second, std::move(admission));
    self->state.waiting.erase(scheduler);
  }
  for (const QuotaRevocation& revocation : effects.revocations) {
    if (const auto holder = self->state.schedulers.find(revocation.holder);
        holder != self->state.schedulers.end()) {
      v1::QuotaLeaseRevoke revoke;
      revoke.set_lease_id(revocation.lease_id);
      self->send(holder->second, std::move(revoke));
    }
  }
}

/// Tells the observer, if any, of a change; `event` builds it only then (it copies).
template <class MakeEvent>
void observe(Self self, MakeEvent event) {
  if (self->state.settings.observer) {
    QuotaLedgerEvent built = event();
    built.waiting_queues = self->state.admission.line().queues();
    self->state.settings.observer(built);
  }
}

void release(Self self, const std::vector<std::string>& ids) {
  const QuotaEffects effects = self->state.admission.release(ids);
  observe(self, [&] { return QuotaLedgerEvent{{}, {}, ids, {}}; });
  carry_out(self, effects);
}

/// The work no longer waits for quota: its place in line and its admission hold go.
void withdraw(Self self, const std::string& work_id) {
  self->state.waiting.erase(work_id);
  carry_out(self, self->state.admission.withdraw(work_id));
}

/// Frees what ended work held, believing a cluster only about placements on it.
void release_finished(Self self, const v1::FinishedPlacements& finished) {
  const QuotaLedger& ledger = self->state.admission.ledger();
  std::vector<std::string> ended;
  size_t elsewhere = 0;
  for (const std::string& id : finished.placement_ids()) {
    if (ledger.holds_on(id, finished.cluster_id())) {
      ended.push_back(id);
    } else {
      elsewhere += ledger.holds(id) ? 1 : 0;
    }
  }
  if (elsewhere > 0) {
    spdlog::warn(
        "quota: cluster {} reported {} placements finished that hold quota on another "
        "cluster; kept",
        model::printable(finished.cluster_id()), elsewhere);
  }
  if (!ended.empty()) {
    release(self, ended);
  }
}

/// The scheduler sending the current message, watched from its first take on (its leases and
/// waiting work are given back when it goes); "" for a sender that is none.
std::string scheduler_key(Self self) {
  const auto scheduler = caf::actor_cast<AdmissionListenerActor>(self->current_sender());
  if (!scheduler) {
    return {};
  }
  std::string key = caf::to_string(scheduler.address());
  if (self->state.schedulers.emplace(key, scheduler).second) {
    self->monitor(scheduler);
  }
  return key;
}

v1::QuotaTakeReply on_take(Self self, const v1::QuotaTakeRequest& request) {
  auto& state = self->state;
  const QuotaTake take = take_of(request);
  const std::string holder = scheduler_key(self);
  const QuotaTakeResult result = state.admission.take(take, holder);
  v1::QuotaTakeReply reply;
  reply.set_reason(result.reason);
  if (result.taken) {
    reply.set_status(v1::QuotaTakeReply::TAKEN);
    if (result.lease) {
      reply.set_lease_id(result.lease->id);
      fill(*reply.mutable_lease(), result.lease->amounts);
    }
    observe(self, [&] {
      return QuotaLedgerEvent{
          request.queue(), {request.placements().begin(), request.placements().end()}, {}, {}};
    });
  } else if (result.refused) {
    reply.set_status(v1::QuotaTakeReply::REFUSED);
  } else {
    reply.set_status(v1::QuotaTakeReply::QUEUED);
    if (!holder.empty()) {
      state.waiting[request.work_id()] = state.schedulers.at(holder);
    }
  }
  carry_out(self, result.effects);  // other work than this one: their order is their own
  return reply;
}

void on_lease_use(Self self, const v1::QuotaLeaseUse& use) {
  const v1::QuotaTakeRequest& request = use.take();
  const QuotaTake take = take_of(request);
  if (const auto problem = self->state.admission.use_lease(use.lease_id(), take)) {
    spdlog::error("quota: {}", model::printable(*problem));
  }
  observe(self, [&] {
    return QuotaLedgerEvent{
        request.queue(), {request.placements().begin(), request.placements().end()}, {}, {}};
  });
}

/// A scheduler is gone: its leases come back, and its waiting work waits no more.
void on_scheduler_down(Self self, const caf::down_msg& down) {
  auto& state = self->state;
  const std::string key = caf::to_string(down.source);
  QuotaEffects effects = state.admission.holder_gone(key);
  for (auto work = state.waiting.begin(); work != state.waiting.end();) {
    if (caf::actor_cast<caf::actor_addr>(work->second) == down.source) {
      QuotaEffects more = state.admission.withdraw(work->first);
      effects.admitted.insert(effects.admitted.end(), more.admitted.begin(), more.admitted.end());
      effects.revocations.insert(effects.revocations.end(), more.revocations.begin(),
                                 more.revocations.end());
      work = state.waiting.erase(work);
    } else {
      ++work;
    }
  }
  state.schedulers.erase(key);
  carry_out(self, effects);
}

v1::QuotaStatus status_of(const QuotaActorState& state, const v1::QuotaDefinition& definition) {
  v1::QuotaStatus status;
  *status.mutable_quota() = definition;
  const QuotaUsage usage = state.admission.ledger().usage(definition.queue());
  fill(*status.mutable_used(), usage.used);
  fill(*status.mutable_leased(), usage.leased);
  fill(*status.mutable_borrowed(), usage.borrowed);
  fill(*status.mutable_lent(), usage.lent);
  const QuotaPending pending = state.admission.line().pending(definition.queue());
  fill(*status.mutable_pending(), pending.demand);
  status.set_pending_requests(pending.requests);
  return status;
}

v1::QuotaStatus define(Self self, const v1::QuotaDefinition& definition) {
  self->state.definitions[definition.queue()] = definition;
  carry_out(self, self->state.admission.put(quota_spec_of(definition)));
  spdlog::info("quota {}: queue {} (cohort {})", definition.name(), definition.queue(),
               definition.cohort().empty() ? "none" : definition.cohort());
  return status_of(self->state, definition);
}

/// After a restart: the quotas, then what decided work still holds, taken without limits (it
/// holds it already, on its clusters) and only once per placement.
void restore(Self self, const v1::QuotaRestore& restored) {
  for (const auto& definition : restored.quotas()) {
    define(self, definition);
  }
  size_t placements = 0;
  for (const auto& holding : restored.holdings()) {
    placements += static_cast<size_t>(holding.placements_size());
    self->state.admission.restore(take_of(holding).commit);
  }
  spdlog::info("quota ledger restored: {} quotas, {} placements holding budget",
               restored.quotas_size(), placements);
}

QuotaActor::behavior_type quota_actor(Self self, QuotaActorSettings settings) {
  self->state.settings = std::move(settings);
  self->state.admission.set_queues_require_quota(self->state.settings.queues_require_quota);
  log_stray_errors(self, "quota");
  self->set_down_handler([=](caf::down_msg& down) { on_scheduler_down(self, down); });
  return {
      [=](const v1::QuotaTakeRequest& take) { return on_take(self, take); },
      [=](const v1::QuotaLeaseUse& use) { on_lease_use(self, use); },
      [=](const v1::QuotaRelease& order) {
        if (!order.ids().empty()) {
          release(self, {order.ids().begin(), order.ids().end()});
        }
        if (!order.withdraw().empty()) {
          withdraw(self, order.withdraw());
        }
        for (const std::string& attempt : order.attempts()) {
          if (auto held = self->state.admission.ledger().held_under(attempt + "/"); !held.empty()) {
            release(self, held);
          }
          withdraw(self, attempt);
        }
      },
      [=](const v1::FinishedPlacements& finished) { release_finished(self, finished); },
      [=](const v1::QuotaDefinition& definition) { return define(self, definition); },
      [=](quotas_atom) {
        v1::QuotaList list;
        for (const auto& [queue, definition] : self->state.definitions) {
          *list.add_quotas() = status_of(self->state, definition);
        }
        list.set_revision(self->state.admission.ledger().revision());
        return list;
      },
      [=](const v1::QuotaRestore& restored) { restore(self, restored); },
  };
}

}  // namespace

QuotaSpec quota_spec_of(const v1::QuotaDefinition& definition) {
  QuotaSpec spec;
  spec.name = definition.name();
  spec.queue = definition.queue();
  spec.cohort = definition.cohort();
  spec.weight = definition.weight();
  spec.hard = amounts_of(definition.hard());
  if (definition.has_borrowing_limit()) {
    spec.borrowing_limit = amounts_of(definition.borrowing_limit());
  }
  if (definition.has_lending_limit()) {
    spec.lending_limit = amounts_of(definition.lending_limit());
  }
  for (const auto& cap : definition.caps()) {
    spec.caps.push_back(
        {cap.cluster(), cap.region(), cap.zone(), cap.model(), amounts_of(cap.hard())});
  }
  return spec;
}

QuotaActor spawn_quota_actor(caf::actor_system& system, const QuotaActorSettings& settings) {
  return system.spawn(quota_actor, settings);
}

}  // namespace unisched::actors
