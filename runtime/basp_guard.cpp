#include "runtime/basp_guard.hpp"

#include <dlfcn.h>
#include <spdlog/spdlog.h>
#include <caf/io/basp/header.hpp>
#include <caf/io/basp_broker.hpp>

#include <atomic>

namespace unisched::runtime {
namespace {

// BASP 3's operations and flags (caf/io/basp/message_type.hpp, header.hpp in CAF 0.17).
enum Operation : uint8_t {
  kServerHandshake = 0,
  kClientHandshake = 1,
  kDirectMessage = 2,
  kRoutedMessage = 3,
  kMonitorMessage = 4,
  kDownMessage = 5,
  kHeartbeat = 6,
};
constexpr uint8_t kNamedReceiverFlag = 0x01;     // direct and routed messages
constexpr uint8_t kSelectConnectionFlag = 0x02;  // client handshakes
constexpr uint64_t kBaspVersion = 3;             // a server handshake's operation data

std::atomic<uint64_t> refused{0};

// The connection whose data CAF is reading: the broker notes it (set_context, below) on the
// multiplexer's thread right before it checks a header read from it.
thread_local caf::io::basp_broker* reading_broker = nullptr;
thread_local caf::io::connection_handle reading_connection;

constexpr const char* kSetContextSymbol =
    "_ZN3caf2io11basp_broker11set_contextENS0_17connection_handleE";

/// Whether the connection being read has not completed its handshake: CAF routes a peer only
/// once its handshake came, and sizes a buffer for any payload a header announces, so an actor
/// message before that would hold up to 64 MiB for nothing.
bool before_handshake() {
  return reading_broker != nullptr &&
         !reading_broker->instance.tbl().lookup_direct(reading_connection);
}

std::string_view control_payload_refusal(uint32_t length) {
  if (length == 0) {
    return "it carries no payload, which this operation needs";
  }
  if (length > kMaxBaspControlPayload) {
    return "its payload is larger than a control message may be (64 KiB)";
  }
  return {};
}

std::string_view message_payload_refusal(const BaspHeader& header) {
  if (header.destination_actor == 0) {
    return "an actor message names no receiver";
  }
  if (header.payload_length == 0) {
    return "an actor message carries no payload";
  }
  if (header.payload_length > kMaxBaspMessagePayload) {
    return "its payload is larger than a message may be (64 MiB)";
  }
  return {};
}

std::string_view handshake_refusal(const BaspHeader& header) {
  if (header.source_actor != 0 || header.destination_actor != 0) {
    return "a handshake names actors";
  }
  if (header.operation == kServerHandshake) {
    if (header.flags != 0) {
      return "a server handshake has flags";
    }
    if (header.operation_data != kBaspVersion) {
      return "a server handshake is not of BASP version 3";
    }
  } else {
    if ((header.flags & ~kSelectConnectionFlag) != 0) {
      return "a client handshake has unknown flags";
    }
    if (header.operation_data != 0) {
      return "a client handshake has operation data";
    }
  }
  return control_payload_refusal(header.payload_length);
}

std::string_view monitoring_refusal(const BaspHeader& header) {
  if (header.flags != 0 || header.operation_data != 0) {
    return "a monitor or down message has flags or operation data";
  }
  const bool monitor = header.operation == kMonitorMessage;
  if (monitor && (header.source_actor != 0 || header.destination_actor == 0)) {
    return "a monitor message must name the monitored actor as its receiver only";
  }
  if (!monitor && (header.source_actor == 0 || header.destination_actor != 0)) {
    return "a down message must name the terminated actor as its sender only";
  }
  return control_payload_refusal(header.payload_length);
}

void log_refusal(const BaspHeader& header, std::string_view reason) {
  const uint64_t count = ++refused;
  // The first refusals are the useful ones; a flood of them must not flood the log too.
  if (count <= 10 || (count & (count - 1)) == 0) {
    spdlog::warn(
        "refused a remote peer's message header (operation {}, payload {} bytes): {}; the "
        "connection is closed ({} refused so far)",
        header.operation, header.payload_length, reason, count);
  }
}

}  // namespace

std::string_view basp_header_refusal(const BaspHeader& header) {
  switch (header.operation) {
    case kServerHandshake:
    case kClientHandshake:
      return handshake_refusal(header);
    case kDirectMessage:
    case kRoutedMessage:
      if ((header.flags & ~kNamedReceiverFlag) != 0) {
        return "an actor message has unknown flags";
      }
      return message_payload_refusal(header);
    case kMonitorMessage:
    case kDownMessage:
      return monitoring_refusal(header);
    case kHeartbeat:
      if (header.flags != 0 || header.payload_length != 0 || header.operation_data != 0 ||
          header.source_actor != 0 || header.destination_actor != 0) {
        return "a heartbeat carries fields";
      }
      return {};
    default:
      return "the operation is unknown";
  }
}

uint64_t basp_headers_refused() {
  return refused.load();
}

}  // namespace unisched::runtime

// The definition CAF's calls bind to (see basp_guard.hpp).
bool caf::io::basp::valid(const caf::io::basp::header& hdr) {
  unisched::runtime::BaspHeader header;
  header.operation = static_cast<uint8_t>(hdr.operation);
  header.flags = hdr.flags;
  header.payload_length = hdr.payload_len;
  header.operation_data = hdr.operation_data;
  header.source_actor = hdr.source_actor;
  header.destination_actor = hdr.dest_actor;
  std::string_view reason = unisched::runtime::basp_header_refusal(header);
  const bool actor_message = header.operation == unisched::runtime::kDirectMessage ||
                             header.operation == unisched::runtime::kRoutedMessage;
  if (reason.empty() && actor_message && unisched::runtime::before_handshake()) {
    reason = "an actor message before the connection's handshake";
  }
  if (reason.empty()) {
    return true;
  }
  unisched::runtime::log_refusal(header, reason);
  return false;
}

namespace unisched::runtime {

bool basp_guard_active() {
  // The definitions the dynamic linker gives to everyone who calls CAF's check and the
  // broker's set_context, CAF included.
  void* check = dlsym(RTLD_DEFAULT, "_ZN3caf2io4basp5validERKNS1_6headerE");
  void* noted = dlsym(RTLD_DEFAULT, kSetContextSymbol);
  return check == reinterpret_cast<void*>(&caf::io::basp::valid) && noted != nullptr &&
         noted != dlsym(RTLD_NEXT, kSetContextSymbol);
}

}  // namespace unisched::runtime

// The broker's own set_context, with the connection noted first (see before_handshake()). CAF
// calls it through the dynamic linker, as it calls valid(); the original is the next one bound.
void caf::io::basp_broker::set_context(connection_handle hdl) {
  using Original = void (*)(caf::io::basp_broker*, caf::io::connection_handle);
  static const auto original =
      reinterpret_cast<Original>(dlsym(RTLD_NEXT, unisched::runtime::kSetContextSymbol));
  unisched::runtime::reading_broker = this;
  unisched::runtime::reading_connection = hdl;
  original(this, hdl);
}
