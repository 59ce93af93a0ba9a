#include "messages/agent_snapshot.hpp"

#include "messages/convert.hpp"
#include "messages/wire_arena.hpp"

namespace unisched::messages {

AgentSnapshot share_snapshot(model::ViewSnapshot snapshot) {
  return {std::make_shared<const model::ViewSnapshot>(std::move(snapshot)), 0, 0, {}};
}

AgentSnapshot read_snapshot(const v1::ClusterSnapshot& message) {
  AgentSnapshot out;
  out.part = message.part();
  out.parts = message.parts();
  auto snapshot = from_proto(message);
  if (snapshot) {
    out.snapshot = std::make_shared<const model::ViewSnapshot>(std::move(*snapshot));
    return out;
  }
  model::ViewSnapshot position;
  position.cluster_id = message.cluster_id();
  position.epoch = message.epoch();
  position.version = message.version();
  out.snapshot = std::make_shared<const model::ViewSnapshot>(std::move(position));
  out.problem = snapshot.error();
  return out;
}

namespace {

void write_snapshot(const AgentSnapshot& snapshot, v1::ClusterSnapshot& out) {
  if (snapshot.snapshot) {
    to_proto(*snapshot.snapshot, out);
  }
  out.set_part(snapshot.part);
  out.set_parts(snapshot.parts);
}

}  // namespace

v1::ClusterSnapshot to_proto(const AgentSnapshot& snapshot) {
  v1::ClusterSnapshot out;
  write_snapshot(snapshot, out);
  return out;
}

std::string encode_snapshot(const AgentSnapshot& snapshot) {
  WireArena arena;
  auto& message = arena.make<v1::ClusterSnapshot>();
  write_snapshot(snapshot, message);
  return message.SerializeAsString();
}

bool decode_snapshot(const std::string& bytes, std::string problem, AgentSnapshot& out) {
  return parse_and_read<v1::ClusterSnapshot>(bytes, std::move(problem), read_snapshot, out);
}

}  // namespace unisched::messages
