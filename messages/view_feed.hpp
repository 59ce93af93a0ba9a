// One change of a ClusterActor's view, or the whole view, as its subscribers (schedulers)
// receive it. Inside a process it is the revision the ClusterActor's change log holds, shared and
// read-only down to the node states: no subscriber gets a copy or an encoding of it. Across a
// link it travels as the IncrementalUpdate or ClusterSnapshot it converts to
// (messages/caf_types.hpp), the bytes the seed's schema gives it.
#pragma once

#include <memory>
#include <string>

#include "model/view_revision.hpp"

namespace unisched::messages {

struct ViewFeed {
  std::shared_ptr<const model::ViewRevision> revision;  ///< never null once received
};

/// The bytes of a feed entry: a ClusterSnapshot for a whole view, else an IncrementalUpdate.
std::string encode_feed(const ViewFeed& feed);
/// Reads such bytes back (`whole` says which message they are); the reason on malformed input
/// (nothing is kept then).
std::string decode_feed(const std::string& bytes, bool whole, ViewFeed& out);

}  // namespace unisched::messages
