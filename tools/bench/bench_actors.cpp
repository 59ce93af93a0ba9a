#include "tools/bench/bench_actors.hpp"

#include <caf/actor_cast.hpp>
#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include <algorithm>
#include <map>

#include "absl/container/flat_hash_set.h"

#include "actors/agent_actor.hpp"
#include "actors/cluster_actor.hpp"
#include "messages/caf_types.hpp"
#include "messages/convert.hpp"
#include "messages/errors.hpp"
#include "messages/node_wire.hpp"
#include "model/cluster_view.hpp"

namespace unisched::bench {
namespace {

using namespace unisched::atoms;

actors::ViewSubscriberActor::behavior_type view_mirror(actors::ViewSubscriberActor::pointer self,
                                                       actors::ClusterActor cluster, int index,
                                                       std::shared_ptr<VisibilityLog> visibility) {
  auto view = std::make_shared<model::ClusterView>();
  const auto replace = [view](const model::ViewRevision& whole) {
    model::ClusterView fresh;
    if (!fresh.apply(whole.changes, model::Allocation::MayExceed)) {
      *view = std::move(fresh);
    }
  };
  self->request(cluster, caf::infinite, subscribe_atom_v,
                caf::actor_cast<actors::ViewSubscriberActor>(self))
      .then([=](const messages::ViewFeed& whole) { replace(*whole.revision); });
  return {
      [=](const messages::ViewFeed& feed) {
        // The work a SchedulerActor does for each change of the feed.
        const auto& update = feed.revision;
        if (update && update->whole) {
          replace(*update);
          return;
        }
        if (!update || view->apply(update->changes, model::Allocation::MayExceed)) {
          return;
        }
        auto& visible = visibility->visible[static_cast<size_t>(index)];
        if (update->revision < visible.size()) {
          visible[update->revision] = Clock::now();
          if (update->revision + 1 == visible.size()) {
            ++visibility->mirrors_done;
          }
        }
      },
      [](health_atom, const std::string&, bool) {},
  };
}

CentreActor::behavior_type centre(CentreActor::pointer self,
                                  std::shared_ptr<VisibilityLog> visibility) {
  auto clusters = std::make_shared<std::map<std::string, actors::ClusterActor>>();
  return {
      [=](register_atom, const std::string& id,
          int32_t index) -> caf::result<actors::ClusterActor> {
        const auto agent = caf::actor_cast<actors::AgentActor>(self->current_sender());
        // No update rate limit: the bench measures what the ingest path itself can take.
        actors::ClusterActorSettings settings;
        settings.update_limits = {};
        const actors::ClusterActor cluster = actors::spawn_cluster_actor(
            self->system(), id, agent, caf::actor_cast<caf::strong_actor_ptr>(self), settings);
        self->send(cluster, health_atom_v, true);
        if (visibility) {
          self->spawn<caf::linked>(view_mirror, cluster, index, visibility);
        }
        (*clusters)[id] = cluster;
        return cluster;
      },
      [=](clusters_atom, const std::string& id) -> caf::result<actors::ClusterActor> {
        const auto found = clusters->find(id);
        if (found == clusters->end()) {
          return messages::make_error(messages::Error::NotFound, "no cluster \"" + id + "\"");
        }
        return found->second;
      },
  };
}

struct BenchAgentState {
  std::string id;
  int index = 0;
  StreamParameters parameters;
  actors::ClusterActor cluster;
  caf::actor coordinator;
  std::shared_ptr<VisibilityLog> visibility;
  std::shared_ptr<AgentRecord> record;
  ChangeVariants variants;  // node changes to cycle through, as the wire carries them
  std::vector<model::ViewUpdate> shared_variants;  // the same, read once into model types
  std::vector<size_t> variant_bytes;               // the size of each on the wire
  v1::ClusterSnapshot truth;  // its nodes in full sync only: as the agent last changed them
  /// Otherwise the states its updates carried, by node index, as an agent keeps them to answer
  /// snapshot pulls (shared with the centre's view in one process).
  std::vector<std::shared_ptr<const model::NodeState>> published;
  uint64_t next_version = 1;
  uint64_t last_version = 0;
  uint64_t acked = 0;                       // of streamed updates
  Clock::time_point stream_start;           // paced streams: update n is due at start + n / rate
  std::vector<Clock::time_point> pushed;    // by version, for the Ack latency
  std::vector<model::Reservation> ordered;  // placements to report carried out at the next tick
  absl::flat_hash_set<std::string> carried_out;  // every placement ever ordered: repeats count once
  static inline const char* name = "bench_agent";
};

using Agent = BenchAgentActor::stateful_base<BenchAgentState>;

/// The listing of every node (version 1) or one of the variants, at `version`, as an agent in
/// this process sends it (model types, its states shared with the centre); the agent's truth
/// follows it. What it would take on a link is added to the stream's bytes.
messages::AgentUpdate update_at(BenchAgentState& state, uint64_t version) {
  model::ViewUpdate update;
  if (version == 1) {
    update =
        *messages::read_update(node_listing(state.parameters.nodes, state.parameters.gpus)).update;
    state.published.reserve(state.parameters.full_sync ? 0 : update.changes.size());
    for (size_t n = 0; !state.parameters.full_sync && n < update.changes.size(); ++n) {
      state.published.push_back(update.changes[n].node);
    }
  } else {
    const size_t variant = version % state.variants.updates.size();
    const v1::IncrementalUpdate& wire = state.variants.updates[variant];
    for (int d = 0; state.parameters.full_sync && d < wire.node_deltas_size(); ++d) {
      *state.truth.mutable_nodes(state.variants.nodes_changed[variant][static_cast<size_t>(d)]) =
          wire.node_deltas(d).node();
    }
    if (!state.parameters.full_sync) {  // in full sync the snapshot pulled is counted instead
      state.record->bytes += state.variant_bytes[variant];
    }
    // Each state made anew, as an agent makes one per node change its adapter reports, and
    // compared with the one sent before, as AgentCore does.
    const auto& changes = state.shared_variants[variant].changes;
    for (size_t d = 0; d < changes.size(); ++d) {
      model::SharedNodeChange& change = update.changes.emplace_back(model::SharedNodeChange{
          changes[d].kind, std::make_shared<const model::NodeState>(*changes[d].node)});
      if (!state.parameters.full_sync) {
        const auto node = static_cast<size_t>(state.variants.nodes_changed[variant][d]);
        change.usage_only = !state.parameters.whole_states &&
                            model::only_usage_differs(*state.published[node], *change.node);
        state.published[node] = change.node;
      }
    }
  }
  state.truth.set_version(version);
  update.cluster_id = state.id;
  update.epoch = 1;
  update.version = version;
  update.base_version = version - 1;
  return messages::share_update(std::move(update));
}

void on_ack(Agent* self, const v1::Ack& ack);

/// Sends the next update; its Ack sends the one after, so `window` stay in flight.
void push_next(Agent* self) {
  auto& state = self->state;
  if (state.next_version > state.last_version) {
    return;
  }
  const uint64_t version = state.next_version++;
  auto update = update_at(state, version);
  state.pushed[version] = Clock::now();
  auto* const visibility_pushed =
      state.visibility ? &state.visibility->pushed[static_cast<size_t>(state.index)] : nullptr;
  if (visibility_pushed != nullptr && version < visibility_pushed->size()) {
    (*visibility_pushed)[version] = state.pushed[version];  // reports may have moved the stream
  }
  const auto on_error = [=](const caf::error& error) {
    self->state.record->problem = self->state.id + ": no Ack: " + to_string(error);
    caf::anon_send(self->state.coordinator, summary_atom_v, self->state.index);
  };
  if (state.parameters.full_sync && version > 1) {
    // The ClusterActor pulls the whole state; the snapshot handler counts its bytes.
    self->request(state.cluster, caf::infinite, resync_atom_v)
        .then([=](const v1::Ack& ack) { on_ack(self, ack); }, on_error);
    return;
  }
  self->request(state.cluster, caf::infinite, std::move(update))
      .then([=](const v1::Ack& ack) { on_ack(self, ack); }, on_error);
}

void on_ack(Agent* self, const v1::Ack& ack) {
  auto& state = self->state;
  if (ack.status() != v1::Ack::APPLIED && state.record->problem.empty()) {
    state.record->problem = state.id + ": update " + std::to_string(ack.version()) + " was " +
                            v1::Ack::Status_Name(ack.status()) + " " + ack.error();
  }
  if (ack.version() == 1) {
    caf::anon_send(state.coordinator, online_atom_v, state.index);
    return;
  }
  state.record->ack_ms.push_back(milliseconds_since(state.pushed[ack.version()]));
  if (++state.acked == static_cast<uint64_t>(state.parameters.updates)) {
    state.variants = {};  // done: hold nothing a later memory figure would count
    state.shared_variants = {};
    state.variant_bytes = {};
    caf::anon_send(state.coordinator, summary_atom_v, state.index);
    return;
  }
  if (state.parameters.rate == 0) {
    push_next(self);
  }
}

bool streaming(const BenchAgentState& state) {
  return state.stream_start != Clock::time_point{} &&
         state.acked < static_cast<uint64_t>(state.parameters.updates);
}

/// The next version for an update outside the stream. Before the stream starts, the stream's
/// versions move up by one, so that it still sends every update it was asked to.
uint64_t take_version(BenchAgentState& state) {
  if (state.stream_start == Clock::time_point{}) {
    ++state.last_version;
    state.pushed.resize(state.last_version + 1);
  }
  return state.next_version++;
}

/// Reports what it carried out since the last tick, as an agent reports what it observed: each
/// node's new state with the placements in, and the placements applied. The ClusterActor then
/// settles the reservations; holding them forever would only grow its holdings.
void report_carried_out(Agent* self) {
  auto& state = self->state;
  std::map<size_t, std::shared_ptr<model::NodeState>> changed;  // by node index
  model::ViewUpdate update;
  for (const model::Reservation& placement : state.ordered) {
    const auto node = synthetic_node_index(placement.node);
    if (!node || *node >= state.published.size()) {
      state.record->problem =
          state.id + ": placement " + placement.id + " on unknown node " + placement.node;
      continue;
    }
    auto& next = changed[*node];
    if (!next) {
      next = std::make_shared<model::NodeState>(*state.published[*node]);
    }
    model::apply_reservation(*next, placement, +1);
    update.applied_placements.push_back(placement.id);
  }
  state.ordered.clear();
  if (update.applied_placements.empty()) {
    return;  // every order named a node this agent does not have: the problem says so
  }
  for (auto& [node, next] : changed) {
    state.published[node] = next;
    update.changes.push_back({model::NodeChangeKind::Update, std::move(next)});
  }
  std::sort(update.changes.begin(), update.changes.end(),
            [](const auto& a, const auto& b) { return a.node->name < b.node->name; });
  update.cluster_id = state.id;
  update.epoch = 1;
  update.version = take_version(state);
  update.base_version = update.version - 1;
  self->request(state.cluster, caf::infinite, messages::share_update(std::move(update)))
      .then(
          [=](const v1::Ack& ack) {
            if (ack.status() != v1::Ack::APPLIED && self->state.record->problem.empty()) {
              self->state.record->problem = self->state.id +
                                            ": report of placements carried out was " +
                                            v1::Ack::Status_Name(ack.status()) + " " + ack.error();
            }
          },
          [=](const caf::error& error) {
            self->state.record->problem = self->state.id + ": no Ack: " + to_string(error);
          });
}

/// Takes an order to carry out; reported at the next tick, an observe interval away.
void on_order(Agent* self, const v1::PlacementOrder& order) {
  auto& state = self->state;
  if (state.parameters.full_sync) {
    return;  // that design is measured on ingest alone: its truth is the protobuf listing
  }
  const bool tick_set = !state.ordered.empty();
  for (const v1::Placement& placement : order.placements()) {
    if (state.carried_out.insert(placement.id()).second) {
      state.ordered.push_back(messages::from_proto(placement));
    }
  }
  if (!tick_set && !state.ordered.empty()) {
    self->delayed_send(self, actors::AgentSettings{}.observe_interval, process_atom_v);
  }
}

/// Pushes the update that is due and sets the timer for the next (a paced stream).
void push_on_time(Agent* self) {
  auto& state = self->state;
  push_next(self);
  if (state.next_version <= state.last_version) {
    const auto streamed = static_cast<int64_t>(state.next_version - 2);  // the listing is 1
    const auto due = state.stream_start +
                     std::chrono::nanoseconds(1'000'000'000 * streamed / state.parameters.rate);
    self->delayed_send(self, std::max(due - Clock::now(), Clock::duration::zero()), observe_atom_v);
  }
}

/// Starts the agent's stream of updates: on time at the rate asked, or a window ahead.
void start_stream(Agent* self) {
  // Made only now, so that a listed fleet holds nothing a memory figure would count.
  const StreamParameters& parameters = self->state.parameters;
  self->state.variants =
      change_variants(parameters.nodes, parameters.deltas_per_update, parameters.gpus,
                      static_cast<uint64_t>(self->state.index) + 1);
  for (const v1::IncrementalUpdate& wire : self->state.variants.updates) {
    model::ViewUpdate& variant =
        self->state.shared_variants.emplace_back(*messages::read_update(wire).update);
    for (model::SharedNodeChange& change : variant.changes) {
      change.usage_only = !parameters.whole_states;  // only allocations change
    }
    std::string bytes;
    messages::write_update_bytes(variant, bytes);
    self->state.variant_bytes.push_back(bytes.size());
  }
  self->state.stream_start = Clock::now();
  if (parameters.rate > 0) {
    push_on_time(self);
    return;
  }
  for (int i = 0; i < parameters.window; ++i) {
    push_next(self);
  }
}

/// The agent's whole state, as an agent in this process (or one across a link) answers.
messages::AgentSnapshot answer_snapshot(Agent* self) {
  if (!self->state.parameters.full_sync) {
    // What an agent in this process answers (AgentCore::snapshot): the states it
    // published, shared, in name order.
    model::ViewSnapshot snapshot;
    snapshot.cluster_id = self->state.id;
    snapshot.epoch = self->state.truth.epoch();
    snapshot.version = self->state.truth.version();
    snapshot.nodes = self->state.published;
    std::sort(snapshot.nodes.begin(), snapshot.nodes.end(),
              [](const auto& a, const auto& b) { return a->name < b->name; });
    return messages::share_snapshot(std::move(snapshot));
  }
  self->state.record->bytes += self->state.truth.ByteSizeLong();
  return messages::read_snapshot(self->state.truth);  // as received from a link
}

BenchAgentActor::behavior_type bench_agent(Agent* self, CentreActor centre, caf::actor coordinator,
                                           int index, StreamParameters parameters,
                                           std::shared_ptr<VisibilityLog> visibility,
                                           std::shared_ptr<AgentRecord> record) {
  auto& state = self->state;
  state.id = cluster_name(index);
  state.index = index;
  state.parameters = parameters;
  state.coordinator = std::move(coordinator);
  state.visibility = std::move(visibility);
  state.record = std::move(record);
  state.truth.set_cluster_id(state.id);
  state.truth.set_epoch(1);
  for (int n = 0; parameters.full_sync && n < parameters.nodes; ++n) {
    *state.truth.add_nodes() = synthetic_node(n, 0, parameters.gpus);
  }
  state.last_version = static_cast<uint64_t>(parameters.updates) + 1;
  state.pushed.resize(state.last_version + 1);
  self->request(centre, caf::infinite, register_atom_v, state.id, static_cast<int32_t>(index))
      .then(
          [=](const actors::ClusterActor& cluster) {
            self->state.cluster = cluster;
            push_next(self);  // the listing
          },
          [=](const caf::error& error) {
            self->state.record->problem =
                self->state.id + ": could not register: " + to_string(error);
            caf::anon_send(self->state.coordinator, online_atom_v, self->state.index);
          });
  return {
      [=](push_atom) { start_stream(self); },
      [=](observe_atom) { push_on_time(self); },
      [=](const v1::PlacementOrder& order) { on_order(self, order); },
      [=](process_atom) {
        if (streaming(self->state)) {  // its versions are the stream's until it ends
          self->delayed_send(self, actors::AgentSettings{}.observe_interval, process_atom_v);
          return;
        }
        report_carried_out(self);
      },
      [](const v1::ReleaseOrder&) {},  // nothing the bench places is released
      [=](const v1::SnapshotRequest&) { return answer_snapshot(self); },
      [=](const v1::HealthProbe&) -> caf::result<v1::HealthStatus> {
        v1::HealthStatus status;
        status.set_cluster_id(self->state.id);
        status.set_state(v1::HEALTHY);
        return status;
      },
      [](bind_atom, const actors::ClusterIngestActor&, const std::string&) {},
  };
}

}  // namespace

VisibilityLog::VisibilityLog(int clusters, int versions)
    : pushed(static_cast<size_t>(clusters), std::vector<Clock::time_point>(versions)),
      visible(static_cast<size_t>(clusters), std::vector<Clock::time_point>(versions)) {}

std::vector<double> VisibilityLog::latencies_ms() const {
  std::vector<double> latencies;
  for (size_t c = 0; c < pushed.size(); ++c) {
    for (size_t v = 2; v < pushed[c].size(); ++v) {  // streamed updates, not the listing
      if (pushed[c][v] != Clock::time_point{} && visible[c][v] != Clock::time_point{}) {
        latencies.push_back(
            std::chrono::duration<double, std::milli>(visible[c][v] - pushed[c][v]).count());
      }
    }
  }
  return latencies;
}

std::string cluster_name(int index) {
  return "bench-" + std::to_string(index);
}

CentreActor spawn_centre(caf::actor_system& system, std::shared_ptr<VisibilityLog> visibility) {
  return system.spawn(centre, std::move(visibility));
}

BenchAgentActor spawn_bench_agent(caf::actor_system& system, const CentreActor& centre,
                                  const caf::actor& coordinator, int index,
                                  const StreamParameters& parameters,
                                  std::shared_ptr<VisibilityLog> visibility,
                                  std::shared_ptr<AgentRecord> record) {
  return system.spawn(bench_agent, centre, coordinator, index, parameters, std::move(visibility),
                      std::move(record));
}

}  // namespace unisched::bench
