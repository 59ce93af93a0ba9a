// The network of a simulation run: every actor that would sit in another process is reached
// through a proxy of its own, and every message into a proxy passes here before it reaches the
// actor. Between the centre and an agent, and between a scheduler and a ClusterActor (the links
// that cross processes in a deployment), the seed decides what happens to each update, ack,
// commit and order while faults are on: delivered, lost, delivered twice, overtaken by the next
// one on its link, or held a while; an agent can be cut off entirely (a partition: its session
// ends, and it registers again once healed). Handles inside messages are replaced by their proxies,
// so an actor that learns another by message talks to it through the network too, and a sender is
// seen by its proxy, so the checks "is this from the agent I was given" hold as in a
// deployment. Everything runs on CAF's deterministic coordinator, on one thread.
#pragma once

#include <caf/actor_clock.hpp>
#include <caf/actor_system.hpp>
#include <caf/mailbox_element.hpp>

#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <random>
#include <set>

#include "simulation/fault_kinds.hpp"

namespace unisched::simulation {

enum class ActorKind { Agent, Cluster, Scheduler, Supervisor, Hub, Other };

struct FaultRates {
  double drop = 0.02;
  double duplicate = 0.02;
  double reorder = 0.03;
  double delay = 0.04;
  std::chrono::milliseconds max_delay{400};
};

class FaultNetwork {
 public:
  /// Sees every message as it reaches an actor of `kind` (after the faults).
  using DeliveryWatch = std::function<void(ActorKind kind, const caf::message& content)>;

  FaultNetwork(caf::actor_system& system, uint64_t seed, const FaultSet& enabled, FaultRates rates,
               FaultCounts& counts, DeliveryWatch watch);
  FaultNetwork(const FaultNetwork&) = delete;
  FaultNetwork& operator=(const FaultNetwork&) = delete;

  /// The proxy through which others reach `real` (made on first use).
  caf::strong_actor_ptr proxy_of(const caf::strong_actor_ptr& real, ActorKind kind);
  template <class Handle>
  Handle wrap(const Handle& real, ActorKind kind) {
    return caf::actor_cast<Handle>(proxy_of(caf::actor_cast<caf::strong_actor_ptr>(real), kind));
  }

  /// Called by a proxy for each message it receives for `real`.
  void route(const caf::strong_actor_ptr& real, caf::mailbox_element_ptr message,
             caf::execution_unit* context);

  /// Message faults only while on; partitions stay until healed.
  void set_faults_on(bool on) { faults_on_ = on; }
  void cut_off(const caf::strong_actor_ptr& agent);
  void heal_all() { cut_off_.clear(); }

  /// Hands on the held messages that fell due (all of them with `everything`).
  void release_due(bool everything = false);
  size_t held() const { return held_.size(); }

  /// A digest of every delivery so far (who, to whom, which message, in what order): two runs
  /// of one seed must end with the same.
  uint64_t digest() const { return digest_; }
  uint64_t deliveries() const { return deliveries_; }

 private:
  struct Endpoint {
    caf::strong_actor_ptr proxy;
    ActorKind kind = ActorKind::Other;
  };
  struct Held {
    caf::actor_clock::time_point due;
    caf::strong_actor_ptr target;
    caf::mailbox_element_ptr message;
    uint64_t link = 0;
    bool until_next = false;  ///< a reordered message: goes right after the next on its link
  };

  ActorKind kind_of(const caf::actor_addr& real) const;
  const Endpoint* endpoint_of(const caf::strong_actor_ptr& real) const;
  bool faultable(ActorKind from, ActorKind to) const;
  bool partitioned(const caf::strong_actor_ptr& from, const caf::strong_actor_ptr& to) const;
  void rewrite_handles(caf::message& content);
  void deliver(const caf::strong_actor_ptr& target, caf::mailbox_element_ptr message, uint64_t link,
               caf::execution_unit* context);
  bool chance(double probability);

  caf::actor_system& system_;
  std::mt19937_64 random_;
  FaultSet enabled_;
  FaultRates rates_;
  FaultCounts& counts_;
  DeliveryWatch watch_;
  std::map<caf::actor_id, Endpoint> endpoints_;  // by the real actor's id
  std::set<caf::actor_id> proxies_;
  std::set<caf::actor_id> cut_off_;  // agents
  std::list<Held> held_;
  bool faults_on_ = false;
  uint64_t digest_ = 1469598103934665603ull;
  uint64_t deliveries_ = 0;
};

}  // namespace unisched::simulation
