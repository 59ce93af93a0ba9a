// Protobuf bytes into the model, as they arrive over CAF and gRPC (messages/convert and
// messages/design_convert). The first byte picks the message: unisched.v1 IncrementalUpdate,
// ClusterSnapshot or Placement, or the design document's IncrementalUpdate as a first or a later
// update. Whatever the bytes, decoding either refuses with a reason or gives a value whose wire
// form decodes again to the same wire form. IncrementalUpdate bytes are also read by the direct
// reader of node changes, which must agree with the generated parser whenever it reads them at all.
#include <google/protobuf/util/message_differencer.h>

#include "messages/convert.hpp"
#include "messages/design_convert.hpp"
#include "messages/node_wire.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

namespace messages = unisched::messages;
namespace v1 = unisched::v1;
using google::protobuf::util::MessageDifferencer;

template <class Wire>
void check_decodes_stably(const Wire& wire) {
  const auto decoded = messages::from_proto(wire);
  if (!decoded) {
    unisched::fuzz::check(!decoded.error().empty(), "a refusal gives its reason");
    return;
  }
  const Wire encoded = messages::to_proto(*decoded);
  const auto again = messages::from_proto(encoded);
  unisched::fuzz::check(again.has_value(), "a decoded message encodes to one that decodes",
                        encoded.DebugString() + (again ? "" : again.error()));
  const Wire reencoded = messages::to_proto(*again);
  unisched::fuzz::check(MessageDifferencer::Equals(encoded, reencoded),
                        "decoding and encoding again changes nothing",
                        encoded.DebugString() + "--- became ---\n" + reencoded.DebugString());
}

void check_placement(const v1::Placement& wire) {
  v1::Placement encoded;
  messages::to_proto(messages::from_proto(wire), encoded);
  v1::Placement reencoded;
  messages::to_proto(messages::from_proto(encoded), reencoded);
  unisched::fuzz::check(MessageDifferencer::Equals(encoded, reencoded),
                        "a placement decodes and encodes stably", encoded.DebugString());
}

/// What the direct reader of node changes (messages/node_wire) reads, the generated parser and
/// from_proto read the same; and what it writes, they read as to_proto would have made it.
void check_direct_read(std::string_view bytes, bool parsed, const v1::IncrementalUpdate& wire) {
  const auto direct = messages::read_update_bytes(bytes);
  if (!direct) {
    return;
  }
  unisched::fuzz::check(parsed, "bytes read directly are an IncrementalUpdate");
  const auto full = messages::from_proto(wire);
  unisched::fuzz::check(full.has_value(), "an update read directly is one from_proto takes");
  const v1::IncrementalUpdate expected = messages::to_proto(*full);
  unisched::fuzz::check(MessageDifferencer::Equals(messages::to_proto(*direct), expected),
                        "read directly, the same update", expected.DebugString());
  for (size_t i = 0; i < direct->changes.size(); ++i) {
    unisched::fuzz::check(*direct->changes[i].node == *full->changes[i].node,
                          "read directly, the same node states", expected.DebugString());
  }
  std::string written;
  messages::write_update_bytes(*direct, written);
  v1::IncrementalUpdate rewritten;
  unisched::fuzz::check(
      rewritten.ParseFromString(written) && MessageDifferencer::Equals(rewritten, expected),
      "written directly, what to_proto makes", expected.DebugString());
}

template <class Converted>
void check_seed(const Converted& converted) {
  if (converted) {
    check_decodes_stably(*converted);
  } else {
    unisched::fuzz::check(!converted.error().empty(), "a seed refusal gives its reason");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) {
    return 0;
  }
  const uint8_t kind = data[0] % 5;
  const void* bytes = data + 1;
  const int length = static_cast<int>(size - 1);
  if (kind == 0) {
    v1::IncrementalUpdate wire;
    const bool parsed = wire.ParseFromArray(bytes, length);
    if (parsed)
      check_decodes_stably(wire);
    check_direct_read(std::string_view(static_cast<const char*>(bytes), size - 1), parsed, wire);
  } else if (kind == 1) {
    v1::ClusterSnapshot wire;
    if (wire.ParseFromArray(bytes, length))
      check_decodes_stably(wire);
  } else if (kind == 2) {
    v1::Placement wire;
    if (wire.ParseFromArray(bytes, length))
      check_placement(wire);
  } else {
    ::IncrementalUpdate wire;
    if (!wire.ParseFromArray(bytes, length))
      return 0;
    if (kind == 3) {
      check_seed(messages::design_start(wire, 1));
    } else {
      check_seed(messages::design_update(wire, 1));
    }
  }
  return 0;
}
