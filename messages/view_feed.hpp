// One change of a ClusterActor's view as its subscribers (schedulers) receive it. Inside a
// process it is the entry the ClusterActor's change log holds, shared and read-only: no
// subscriber gets a copy or an encoding of it. Across a link it travels as the IncrementalUpdate
// it converts to (messages/caf_types.hpp), the bytes the seed's schema gives it.
#pragma once

#include <memory>
#include <string>

#include "model/view_update.hpp"

namespace unisched::messages {

struct ViewFeed {
  std::shared_ptr<const model::ViewUpdate> update;  ///< never null once received
};

/// The IncrementalUpdate bytes of a feed entry.
std::string encode_feed(const ViewFeed& feed);
/// Reads such bytes back; the reason on malformed input (nothing is kept then).
std::string decode_feed(const std::string& bytes, ViewFeed& out);

}  // namespace unisched::messages
