#include "messages/view_feed.hpp"

#include "messages/convert.hpp"

namespace unisched::messages {

std::string encode_feed(const ViewFeed& feed) {
  std::string bytes;
  if (feed.update) {
    to_proto(*feed.update).SerializeToString(&bytes);
  }
  return bytes;
}

std::string decode_feed(const std::string& bytes, ViewFeed& out) {
  v1::IncrementalUpdate message;
  if (!message.ParseFromString(bytes)) {
    return "view feed: not an IncrementalUpdate";
  }
  auto update = from_proto(message);
  if (!update) {
    return "view feed: " + update.error();
  }
  out.update = std::make_shared<const model::ViewUpdate>(std::move(*update));
  return {};
}

}  // namespace unisched::messages
