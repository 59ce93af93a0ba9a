// An arena for encoding or parsing one message of the data path (an update, a feed entry): its
// sub-messages and strings come from a few blocks freed together instead of an allocation and a
// free each (a node of 8 devices is about 20 of them).
#pragma once

#include <google/protobuf/arena.h>

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

}  // namespace unisched::messages
