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
  out.revision = std::make_shared<const model::ViewRevision>(model::as_revision(std::move(*read)));
  return {};
}

}  // namespace

std::string decode_feed(const std::string& bytes, bool whole, ViewFeed& out) {
  if (!whole) {
    if (auto read = read_update_bytes(bytes)) {
      out.revision =
          std::make_shared<const model::ViewRevision>(model::as_revision(std::move(*read)));
      return {};
    }
  }
  return whole ? decode_as<v1::ClusterSnapshot>(bytes, "ClusterSnapshot", out)
               : decode_as<v1::IncrementalUpdate>(bytes, "IncrementalUpdate", out);
}

}  // namespace unisched::messages
