// The hub actor's state and what the files that make up its behaviour share (runtime/hub.cpp,
// runtime/hub_reconcile.cpp). Internal to the runtime: clients include runtime/hub.hpp.
#pragma once

#include <caf/actor_addr.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/typed_response_promise.hpp>

#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "runtime/hub.hpp"
#include "runtime/hub_interface.hpp"
#include "runtime/hub_requests.hpp"

namespace unisched::runtime {

class ProfileBook;
class QuotaBook;

struct HubState {
  actors::SupervisorActor supervisor;
  std::vector<actors::SchedulerActor> schedulers;
  /// The rules for requests: which scheduler decides each, what each is deciding, the book.
  std::unique_ptr<HubRequests> requests;
  std::map<std::string, std::string> tokens;
  std::map<std::string, std::string> shard_tokens;
  std::map<std::string, v1::ClusterRegistration> clusters;  // registered with an agent
  std::map<std::string, v1::ClusterRegistration> declared;  // applied profiles
  actors::QuotaActor quota;
  std::shared_ptr<QuotaBook> quotas;
  std::shared_ptr<ProfileBook> profiles;
  std::multimap<std::string, caf::typed_response_promise<v1::RequestStatus>> waiting;
  std::chrono::milliseconds collect_interval{};
  HubTimeouts timeouts{};
  uint64_t ticks = 0;                    // of the reconciliation timer
  std::map<std::string, size_t> strays;  // cluster -> placements no decision held, last asked
  static inline const char* name = "hub";
};

using HubSelf = runtime::HubActor::stateful_pointer<HubState>;

/// Carries out what the request rules decided: submissions, answers, releases.
void carry_out(HubSelf self, HubCommands commands);

/// Records that these placements' work ended (the book, the quota ledger).
void record_finished(HubSelf self, const v1::FinishedPlacements& finished);

/// Starts the hub's reconciliation timer (runtime/hub_reconcile.cpp).
void start_reconciling(HubSelf self);
/// One beat of that timer: asks clusters about placements no scheduler follows, and now and
/// then collects placements no decision holds.
void on_reconcile_tick(HubSelf self);
/// Requests whose placements the hub is still checking, and strays it is still releasing.
uint64_t reconciling(const HubState& state);

}  // namespace unisched::runtime
