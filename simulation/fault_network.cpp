#include "simulation/fault_network.hpp"

#include <caf/actor_cast.hpp>
#include <caf/default_attachable.hpp>
#include <caf/make_actor.hpp>
#include <caf/monitorable_actor.hpp>

#include <vector>

#include "runtime/hub_interface.hpp"

namespace unisched::simulation {
namespace {

/// Stands for one actor: what it receives goes through the network; it dies with the actor, so
/// whoever monitors it learns of the actor's end.
class LinkProxy final : public caf::monitorable_actor {
 public:
  LinkProxy(caf::strong_actor_ptr real, FaultNetwork* network)
      : caf::monitorable_actor(caf::actor_config{}.add_flag(0)),
        real_(std::move(real)),
        network_(network) {
    real_->get()->attach(
        caf::default_attachable::make_monitor(caf::actor_cast<caf::actor_addr>(real_), address()));
  }

  void enqueue(caf::mailbox_element_ptr message, caf::execution_unit* context) override {
    auto on_down = [&](caf::down_msg& down) { cleanup(std::move(down.reason), context); };
    if (handle_system_message(*message, context, false, on_down)) {
      return;
    }
    if (!real_) {
      bounce(message, fail_state_);  // a request to a dead actor gets its error
      return;
    }
    network_->route(real_, std::move(message), context);
  }

 protected:
  void on_cleanup(const caf::error&) override { real_.reset(); }

 private:
  caf::strong_actor_ptr real_;
  FaultNetwork* network_;
};

uint64_t mix(uint64_t digest, uint64_t value) {
  return (digest ^ value) * 1099511628211ull;  // FNV-1a step over whole words
}

}  // namespace

FaultNetwork::FaultNetwork(caf::actor_system& system, uint64_t seed, const FaultSet& enabled,
                           FaultRates rates, FaultCounts& counts, DeliveryWatch watch)
    : system_(system),
      random_(seed),
      enabled_(enabled),
      rates_(rates),
      counts_(counts),
      watch_(std::move(watch)) {}

caf::strong_actor_ptr FaultNetwork::proxy_of(const caf::strong_actor_ptr& real, ActorKind kind) {
  if (proxies_.count(real->id()) > 0) {
    return real;
  }
  auto known = endpoints_.find(real->id());
  if (known != endpoints_.end()) {
    return known->second.proxy;
  }
  auto proxy = caf::make_actor<LinkProxy, caf::strong_actor_ptr>(
      system_.next_actor_id(), system_.node(), &system_, real, this);
  proxies_.insert(proxy->id());
  endpoints_[real->id()] = {proxy, kind};
  return proxy;
}

const FaultNetwork::Endpoint* FaultNetwork::endpoint_of(const caf::strong_actor_ptr& real) const {
  if (!real) {
    return nullptr;
  }
  const auto found = endpoints_.find(real->id());
  return found == endpoints_.end() ? nullptr : &found->second;
}

/// The links that cross processes in a deployment: agent and centre, scheduler and ClusterActor
/// (a ClusterActor may live on a shard).
/// The messages the faults touch: updates, acks, commits and orders. The rest (registration,
/// binding, subscriptions, probes, snapshot pulls, and a whole view sent to a subscriber, which
/// is its snapshot) rides the session itself, which loses messages only by ending: a partition.
bool faultable_content(const caf::message& content) {
  using namespace unisched::atoms;
  const auto feed_change = [&] {
    if (!content.match_elements<messages::ViewFeed>()) {
      return false;
    }
    const auto& revision = content.get_as<messages::ViewFeed>(0).revision;
    return revision != nullptr && !revision->whole;
  };
  return content.match_elements<messages::AgentUpdate>() || feed_change() ||
         content.match_elements<v1::Ack>() ||
         content.match_elements<push_atom, messages::AgentSnapshot>() ||
         content.match_elements<v1::CommitRequest>() || content.match_elements<v1::CommitReply>() ||
         content.match_elements<v1::PlacementOrder>() ||
         content.match_elements<v1::ReleaseOrder>() ||
         content.match_elements<v1::SettledPlacements>() ||
         content.match_elements<v1::RefusedPlacement>();
}

bool FaultNetwork::faultable(ActorKind from, ActorKind to) const {
  const auto either = [&](ActorKind a, ActorKind b) {
    return (from == a && to == b) || (from == b && to == a);
  };
  return either(ActorKind::Agent, ActorKind::Cluster) ||
         either(ActorKind::Agent, ActorKind::Supervisor) ||
         either(ActorKind::Scheduler, ActorKind::Cluster);
}

void FaultNetwork::cut_off(const caf::strong_actor_ptr& agent) {
  cut_off_.insert(agent->id());
}

bool FaultNetwork::partitioned(const caf::strong_actor_ptr& from,
                               const caf::strong_actor_ptr& to) const {
  return (from && cut_off_.count(from->id()) > 0) || cut_off_.count(to->id()) > 0;
}

bool FaultNetwork::chance(double probability) {
  return std::uniform_real_distribution<double>(0.0, 1.0)(random_) < probability;
}

namespace {

/// Replaces a handle of type Handle at `index` by its proxy. A ClusterActor seen for the first
/// time (the supervisor spawns them) is given one; other unknown actors stay as they are.
template <class Handle>
bool rewrite_one(caf::message& content, size_t index, ActorKind kind_if_new,
                 const std::function<caf::strong_actor_ptr(const caf::strong_actor_ptr&,
                                                           ActorKind)>& proxy_for) {
  if (!content.match_element<Handle>(index)) {
    return false;
  }
  auto real = caf::actor_cast<caf::strong_actor_ptr>(content.get_as<Handle>(index));
  if (real) {
    if (auto proxy = proxy_for(real, kind_if_new)) {
      content.get_mutable_as<Handle>(index) = caf::actor_cast<Handle>(proxy);
    }
  }
  return true;
}

}  // namespace

void FaultNetwork::rewrite_handles(caf::message& content) {
  const auto proxy_for = [&](const caf::strong_actor_ptr& real,
                             ActorKind kind_if_new) -> caf::strong_actor_ptr {
    if (proxies_.count(real->id()) > 0) {
      return nullptr;
    }
    if (endpoints_.count(real->id()) == 0 && kind_if_new == ActorKind::Other) {
      return nullptr;
    }
    return proxy_of(real, kind_if_new);
  };
  using namespace unisched::actors;
  for (size_t i = 0; i < content.size(); ++i) {
    rewrite_one<ClusterActor>(content, i, ActorKind::Cluster, proxy_for) ||
        rewrite_one<ClusterIngestActor>(content, i, ActorKind::Cluster, proxy_for) ||
        rewrite_one<AgentActor>(content, i, ActorKind::Other, proxy_for) ||
        rewrite_one<ViewSubscriberActor>(content, i, ActorKind::Other, proxy_for) ||
        rewrite_one<CommitterActor>(content, i, ActorKind::Other, proxy_for) ||
        rewrite_one<SchedulerActor>(content, i, ActorKind::Other, proxy_for) ||
        rewrite_one<SupervisorActor>(content, i, ActorKind::Other, proxy_for) ||
        rewrite_one<caf::actor>(content, i, ActorKind::Other, proxy_for);
  }
}

void FaultNetwork::route(const caf::strong_actor_ptr& real, caf::mailbox_element_ptr message,
                         caf::execution_unit* context) {
  const Endpoint* from = endpoint_of(message->sender);
  const Endpoint* to = endpoint_of(real);
  const ActorKind from_kind = from ? from->kind : ActorKind::Other;
  const ActorKind to_kind = to ? to->kind : ActorKind::Other;
  caf::message content = message->move_content_to_message();
  rewrite_handles(content);
  const caf::strong_actor_ptr sender = from ? from->proxy : message->sender;
  auto forwarded = caf::make_mailbox_element(sender, message->mid, std::move(message->stages),
                                             std::move(content));
  const uint64_t link = mix(message->sender ? message->sender->id() : 0, real->id());
  if (partitioned(message->sender, real)) {
    return;  // counted once per partition, not per message
  }
  if (faults_on_ && faultable(from_kind, to_kind) &&
      faultable_content(forwarded->copy_content_to_message())) {
    const auto now = system_.clock().now();
    if (enabled_.has(FaultKind::Drop) && chance(rates_.drop)) {
      ++counts_[FaultKind::Drop];
      return;
    }
    if (enabled_.has(FaultKind::Duplicate) && chance(rates_.duplicate)) {
      ++counts_[FaultKind::Duplicate];
      deliver(real,
              caf::make_mailbox_element(forwarded->sender, forwarded->mid, forwarded->stages,
                                        forwarded->copy_content_to_message()),
              link, context);
    } else if (enabled_.has(FaultKind::Reorder) && chance(rates_.reorder)) {
      ++counts_[FaultKind::Reorder];
      held_.push_back({now + rates_.max_delay, real, std::move(forwarded), link, true});
      return;
    } else if (enabled_.has(FaultKind::Delay) && chance(rates_.delay)) {
      ++counts_[FaultKind::Delay];
      const auto delay = std::chrono::milliseconds(
          std::uniform_int_distribution<int64_t>(1, rates_.max_delay.count())(random_));
      held_.push_back({now + delay, real, std::move(forwarded), link, false});
      return;
    }
  }
  deliver(real, std::move(forwarded), link, context);
}

void FaultNetwork::deliver(const caf::strong_actor_ptr& target, caf::mailbox_element_ptr message,
                           uint64_t link, caf::execution_unit* context) {
  const Endpoint* to = endpoint_of(target);
  if (watch_) {
    watch_(to ? to->kind : ActorKind::Other, message->copy_content_to_message());
  }
  ++deliveries_;
  digest_ = mix(digest_, target->id());
  digest_ = mix(digest_, message->sender ? message->sender->id() : 0);
  digest_ = mix(digest_, message->mid.integer_value());
  digest_ = mix(digest_, message->content().type_token());
  target->enqueue(std::move(message), context);
  // A reordered message goes right after the one that overtook it.
  for (auto it = held_.begin(); it != held_.end();) {
    if (it->until_next && it->link == link) {
      Held overtaken = std::move(*it);
      held_.erase(it);
      deliver(overtaken.target, std::move(overtaken.message), overtaken.link, context);
      return;
    }
    ++it;
  }
}

void FaultNetwork::release_due(bool everything) {
  const auto now = system_.clock().now();
  std::vector<Held> due;
  for (auto it = held_.begin(); it != held_.end();) {
    if (everything || it->due <= now) {
      due.push_back(std::move(*it));
      it = held_.erase(it);
    } else {
      ++it;
    }
  }
  for (Held& message : due) {
    deliver(message.target, std::move(message.message), message.link, nullptr);
  }
}

}  // namespace unisched::simulation
