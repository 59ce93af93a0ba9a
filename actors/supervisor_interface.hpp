// The supervisor's protocol, checked by the compiler (actors/supervisor.hpp says more).
#pragma once

#include <string>

#include "actors/shard_interface.hpp"

namespace unisched::actors {

/// Where a cluster's ClusterActor is now (what a scheduler asks).
///   (clusters, cluster_id)         -> its current ClusterActor (changes on restart)
using ClusterDirectoryActor =
    caf::typed_actor<caf::replies_to<atoms::clusters_atom, std::string>::with<ClusterActor>>;

/// The registry of clusters and the judge of their health; a directory of their ClusterActors.
///   (register, cluster_id, agent)  -> ClusterActor of the cluster (a lost cluster's agent may
///                                     register again and is resynced in full)
///   (summary, cluster_id)          -> ClusterSummary of that cluster
///   (shard, ShardRegistration, shard) -> ShardRegistration as admitted: the shard hosts the
///                                     ClusterActors of clusters that start from now on
///   (shard, cluster_id)            -> ClusterHome: where its ClusterActor runs
///   (view, cluster_id)             -> ClusterSnapshot from the cluster's agent itself
///   (bind, listener)                  who learns of finished work (bound once)
///   FinishedPlacements                from a cluster's current ClusterActor only: passed on
///                                     to the listener
///   GivenUpRequests                   from this process only (the hub): every ClusterActor,
///                                     now and when started later, releases their placements
///   (probe)                           its own timer: probe every agent
using SupervisorActor = ClusterDirectoryActor::extend<
    caf::replies_to<atoms::register_atom, std::string, AgentActor>::with<ClusterActor>,
    caf::replies_to<atoms::summary_atom, std::string>::with<v1::ClusterSummary>,
    caf::replies_to<atoms::shard_atom, v1::ShardRegistration,
                    ShardActor>::with<v1::ShardRegistration>,
    caf::replies_to<atoms::shard_atom, std::string>::with<v1::ClusterHome>,
    caf::replies_to<atoms::view_atom, std::string>::with<v1::ClusterSnapshot>,
    caf::reacts_to<atoms::bind_atom, PlacementListenerActor>,
    caf::reacts_to<v1::FinishedPlacements>, caf::reacts_to<v1::GivenUpRequests>,
    caf::reacts_to<atoms::probe_atom>>;

}  // namespace unisched::actors
