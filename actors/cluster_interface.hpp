// The ClusterActor's protocol, checked by the compiler, and the two interfaces it talks back
// to: the subscribers of its view and the schedulers that committed placements.
#pragma once

#include <cstdint>
#include <string>

#include "actors/agent_interface.hpp"
#include "actors/quota_interface.hpp"

namespace unisched::actors {

/// Whoever follows a cluster's view (schedulers).
///   ViewFeed                        every change of the view, its version the view's revision,
///                                   or the whole view when the subscriber must start over
///                                   (node states shared with the ClusterActor in one process)
///   (health, cluster_id, healthy)   the cluster's health as the supervisor judges it
using ViewSubscriberActor = caf::typed_actor<caf::reacts_to<messages::ViewFeed>,
                                             caf::reacts_to<atoms::health_atom, std::string, bool>>;

/// Whoever committed placements to a cluster (schedulers) hears how they ended there.
///   RefusedPlacement -> Ack   the cluster refused a committed placement: place it again (told
///                             again until acknowledged)
///   SettledPlacements         the cluster carried these out; no refusal will follow
using CommitterActor = caf::typed_actor<caf::replies_to<v1::RefusedPlacement>::with<v1::Ack>,
                                        caf::reacts_to<v1::SettledPlacements>>;

/// One per cluster, holding its versioned view (actors/cluster_actor.hpp says more).
///   (view)                        -> ClusterSnapshot of the view (a copy)
///   (feed)                        -> ViewFeed of the whole view (shared in one process)
///   (feed, revision)              -> ViewFeed of what a copy at that revision lacks: the last
///                                    change when that is all (or nothing), else the whole view
///   (summary)                     -> ClusterSummary (counters)
///   (subscribe, subscriber)       -> ViewFeed of the whole view now; then every change, in order
///   (resync)                      -> Ack once a full snapshot was pulled and applied
///   (resync, epoch, version)      -> Ack at once if the view is at that position, else after
///                                    a full snapshot was pulled and applied
///   (health, healthy)                from the supervisor; unhealthy clusters take no work
///   CommitRequest                 -> CommitReply (compare-and-set on the versions decided on)
///   ReleaseOrder -> Ack              drops reservations (a gang that did not commit); the Ack
///                                    tells the scheduler it arrived (it sends it again if not)
///   PlacementQuery                -> PlacementReport: what became of these placements (the hub
///                                    asks for decisions no scheduler follows any more)
///   (position, epoch, version)       the agent's position from a probe (finds lost updates)
///   (bind, agent)                    the agent to pull snapshots from
///   (bind, listener)                 who to tell of placements whose work finished (from the
///                                    owner only: its supervisor)
///   (retry)                          its own timer: pull a snapshot again
using ClusterActor = ClusterIngestActor::extend<
    caf::replies_to<atoms::view_atom>::with<v1::ClusterSnapshot>,
    caf::replies_to<atoms::feed_atom>::with<messages::ViewFeed>,
    caf::replies_to<atoms::feed_atom, uint64_t>::with<messages::ViewFeed>,
    caf::replies_to<atoms::summary_atom>::with<v1::ClusterSummary>,
    caf::replies_to<atoms::subscribe_atom, ViewSubscriberActor>::with<messages::ViewFeed>,
    caf::replies_to<atoms::resync_atom>::with<v1::Ack>,
    caf::replies_to<atoms::resync_atom, uint64_t, uint64_t>::with<v1::Ack>,
    caf::reacts_to<atoms::health_atom, bool>,
    caf::replies_to<v1::CommitRequest>::with<v1::CommitReply>,
    caf::replies_to<v1::ReleaseOrder>::with<v1::Ack>,
    caf::replies_to<v1::PlacementQuery>::with<v1::PlacementReport>,
    caf::reacts_to<atoms::position_atom, uint64_t, uint64_t>,
    caf::reacts_to<atoms::bind_atom, AgentActor>,
    caf::reacts_to<atoms::bind_atom, PlacementListenerActor>, caf::reacts_to<atoms::retry_atom>,
    caf::reacts_to<atoms::resend_atom>>;

}  // namespace unisched::actors
