#include "messages/view_feed.hpp"

#include <type_traits>

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

/// Why an update read from a feed is no revision: a revision gives whole node states, since a
/// subscriber holds them with its own reservations on top (no agent's state to put usage on).
std::string not_a_revision(const model::ViewUpdate& update) {
  return update.usage_changes.empty()
             ? std::string()
             : "view feed: node_deltas: op USAGE is for an agent's updates; a feed gives whole "
               "node states";
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
  if constexpr (std::is_same_v<Message, v1::IncrementalUpdate>) {
    if (auto problem = not_a_revision(*read); !problem.empty()) {
      return problem;
    }
  }
  out.revision = std::make_shared<const model::ViewRevision>(model::as_revision(std::move(*read)));
  return {};
}

}  // namespace

std::string decode_feed(const std::string& bytes, bool whole, ViewFeed& out) {
  if (!whole) {
    if (auto read = read_update_bytes(bytes)) {
      if (auto problem = not_a_revision(*read); !problem.empty()) {
        return problem;
      }
      out.revision =
          std::make_shared<const model::ViewRevision>(model::as_revision(std::move(*read)));
      return {};
    }
  }
  return whole ? decode_as<v1::ClusterSnapshot>(bytes, "ClusterSnapshot", out)
               : decode_as<v1::IncrementalUpdate>(bytes, "IncrementalUpdate", out);
}

}  // namespace unisched::messages
