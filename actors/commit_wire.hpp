// Commits and releases on the wire: the one place a ClusterCommit or ClusterRelease
// (cores/commit.hpp) becomes the message a scheduler sends a ClusterActor, and a commit is read
// back there.
#pragma once

#include "cores/commit.hpp"
#include "messages/unisched.pb.h"

namespace unisched::actors {

v1::CommitRequest to_wire(const ClusterCommit& commit);
ClusterCommit commit_of(const v1::CommitRequest& request);
v1::ReleaseOrder to_wire(const ClusterRelease& release);

}  // namespace unisched::actors
