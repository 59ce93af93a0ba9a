// An arena for encoding or parsing one message of the data path (an update, a feed entry): its
// sub-messages and strings come from a few blocks freed together instead of an allocation and a
// free each (a node of 8 devices is about 20 of them).
#pragma once

#include <google/protobuf/arena.h>

#include <string>
#include <utility>

namespace unisched::messages {

class WireArena {
 public:
  WireArena() : arena_(options()) {}

  /// A message on the arena, freed with it.
  template <class Message>
  Message& make() {
    return *google::protobuf::Arena::CreateMessage<Message>(&arena_);
  }

 private:
  static google::protobuf::ArenaOptions options() {
    google::protobuf::ArenaOptions options;
    options.start_block_size = 16 << 10;  // a 100-change update takes about 30 KiB
    options.max_block_size = 1 << 20;
    return options;
  }

  google::protobuf::Arena arena_;
};

/// Parses `bytes` as a Message on an arena and reads it into `out` with `read`; `out` keeps
/// `problem` when one came with the bytes (why it was malformed where it was first read, its
/// content left out there). False, with `out` untouched, when the bytes are no Message.
template <class Message, class Read, class Out>
bool parse_and_read(const std::string& bytes, std::string problem, Read read, Out& out) {
  WireArena arena;
  auto& message = arena.make<Message>();
  if (!message.ParseFromString(bytes)) {
    return false;
  }
  out = read(message);
  if (!problem.empty()) {
    out.problem = std::move(problem);
  }
  return true;
}

}  // namespace unisched::messages
