// A commit on the wire: the one place a ClusterCommit (cores/commit.hpp) becomes the
// v1::CommitRequest a scheduler sends a ClusterActor, and is read back there.
#pragma once

#include "cores/commit.hpp"
#include "messages/unisched.pb.h"

namespace unisched::actors {

v1::CommitRequest to_wire(const ClusterCommit& commit);
ClusterCommit commit_of(const v1::CommitRequest& request);

}  // namespace unisched::actors
