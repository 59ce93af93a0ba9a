#include "messages/agent_update.hpp"

#include "messages/convert.hpp"
#include "messages/node_wire.hpp"
#include "messages/wire_arena.hpp"

namespace unisched::messages {

AgentUpdate share_update(model::ViewUpdate update) {
  return {std::make_shared<const model::ViewUpdate>(std::move(update)), {}};
}

AgentUpdate read_update(const v1::IncrementalUpdate& message) {
  auto update = from_proto(message);
  if (update) {
    return share_update(std::move(*update));
  }
  model::ViewUpdate position;
  position.cluster_id = message.cluster_id();
  position.epoch = message.epoch();
  position.base_version = message.base_version();
  position.version = message.version();
  return {std::make_shared<const model::ViewUpdate>(std::move(position)), update.error()};
}

std::string encode_update(const AgentUpdate& update) {
  std::string bytes;
  if (update.update) {
    write_update_bytes(*update.update, bytes);
  }
  return bytes;
}

bool decode_update(const std::string& bytes, std::string problem, AgentUpdate& out) {
  auto read = read_update_bytes(bytes);
  if (!read) {
    // Not read directly: the generated parser and the model's checks say what is wrong.
    return parse_and_read<v1::IncrementalUpdate>(bytes, std::move(problem), read_update, out);
  }
  out = share_update(std::move(*read));
  if (!problem.empty()) {
    out.problem = std::move(problem);  // its changes were left out where it was first read
  }
  return true;
}

}  // namespace unisched::messages
