#include "actors/commit_wire.hpp"

#include "messages/convert.hpp"

namespace unisched::actors {

v1::CommitRequest to_wire(const ClusterCommit& commit) {
  v1::CommitRequest request;
  request.set_cluster_id(commit.cluster_id);
  request.set_request_id(commit.commit.request_id);
  request.set_node_level(commit.mode == CommitMode::NodeRevisions);
  request.set_revision(commit.commit.revision);
  request.mutable_node_revisions()->insert(commit.commit.node_revisions.begin(),
                                           commit.commit.node_revisions.end());
  for (const model::Reservation& reservation : commit.commit.reservations) {
    messages::to_proto(reservation, *request.add_placements());
  }
  return request;
}

ClusterCommit commit_of(const v1::CommitRequest& request) {
  ClusterCommit commit;
  commit.cluster_id = request.cluster_id();
  commit.mode = request.node_level() ? CommitMode::NodeRevisions : CommitMode::ClusterRevision;
  commit.commit.request_id = request.request_id();
  commit.commit.revision = request.revision();
  commit.commit.node_revisions.insert(request.node_revisions().begin(),
                                      request.node_revisions().end());
  for (const auto& placement : request.placements()) {
    commit.commit.reservations.push_back(messages::from_proto(placement));
  }
  return commit;
}

v1::ReleaseOrder to_wire(const ClusterRelease& release) {
  v1::ReleaseOrder order;
  order.set_cluster_id(release.cluster_id);
  order.mutable_placement_ids()->Add(release.placement_ids.begin(), release.placement_ids.end());
  return order;
}

}  // namespace unisched::actors
