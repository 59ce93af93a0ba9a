#include "messages/view_feed.hpp"

#include "messages/convert.hpp"
#include "messages/node_wire.hpp"
#include "messages/wire_arena.hpp"

namespace unisched::messages {

std::string encode_feed(const ViewFeed& feed) {
  std::string bytes;
  if (!feed.revision) {
    return bytes;
  }
  if (!feed.revision->whole) {
    write_update_bytes(model::to_update(*feed.revision), bytes);
    return bytes;
  }
  WireArena arena;
  auto& message = arena.make<v1::ClusterSnapshot>();
  to_proto(model::to_snapshot(*feed.revision), message);
  message.SerializeToString(&bytes);
  return bytes;
}

namespace {

/// The feed's revision from a whole view read off a link.
std::string take_revision(model::ViewSnapshot snapshot, ViewFeed& out) {
  out.revision =
      std::make_shared<const model::ViewRevision>(model::as_revision(std::move(snapshot)));
  return {};
}

/// The feed's revision from changes read off a link, or why they are none: a revision gives
/// whole node states, since a subscriber holds them with its own reservations on top (no
/// agent's state to put usage on).
std::string take_revision(model::ViewUpdate update, ViewFeed& out) {
  if (!update.usage_changes.empty()) {
    return "view feed: node_deltas: op USAGE is for an agent's updates; a feed gives whole node "
           "states";
  }
  out.revision = std::make_shared<const model::ViewRevision>(model::as_revision(std::move(update)));
  return {};
}

template <class Message>
std::string decode_as(const std::string& bytes, const char* name, ViewFeed& out) {
  WireArena arena;
  auto& message = arena.make<Message>();
  if (!message.ParseFromString(bytes)) {
    return std::string("view feed: not a ") + name;
  }
  auto read = from_proto(message);
  if (!read) {
    return "view feed: " + read.error();
  }
  return take_revision(std::move(*read), out);
}

}  // namespace

std::string decode_feed(const std::string& bytes, bool whole, ViewFeed& out) {
  if (!whole) {
    if (auto read = read_update_bytes(bytes)) {
      return take_revision(std::move(*read), out);
    }
  }
  return whole ? decode_as<v1::ClusterSnapshot>(bytes, "ClusterSnapshot", out)
               : decode_as<v1::IncrementalUpdate>(bytes, "IncrementalUpdate", out);
}

}  // namespace unisched::messages
