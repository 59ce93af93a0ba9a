// The guard on CAF's remote-messaging protocol (BASP): every header a peer sends is checked
// against what the protocol allows before CAF acts on it.
//
// Why: CAF 0.17.6 (Debian's libcaf-io) trusts its peers. Its own header check lets a handshake
// through with no payload, and its handshake code then reads that missing payload through a null
// pointer: one 32-byte packet from anyone who can reach the port ends the process. It also sizes
// its read buffer from the header's payload length before a single payload byte has arrived, so
// a header that claims 4 GiB makes it allocate 4 GiB. Both happen before any handshake, so TLS is
// the only thing that stopped them.
//
// How: CAF calls its check, caf::io::basp::valid(const header&), through the dynamic linker for
// every header it reads, on plain TCP and TLS alike, and closes the connection when it says no.
// This file's object defines that function in the executable, so the linker binds CAF's calls to
// this stricter one (as openssl_hooks does for OpenSSL). It defines the BASP broker's
// set_context the same way, which notes the connection being read and calls CAF's own: an actor
// message (whose payload CAF would buffer whole, up to 64 MiB) is refused on a connection that has
// not completed its handshake, so pre-handshake connections cost at most 64 KiB each. Linking it is
// enough; basp_guard_active() tells whether the binding took, so a process can refuse to listen
// unguarded. A patched CAF would need CAF built from source in every build; a proxy in front of
// CAF's port would copy every byte twice and still not see inside TLS.
#pragma once

#include <cstdint>
#include <string_view>

namespace unisched::runtime {

/// A BASP header's fields, as CAF 0.17 reads them (the two padding bytes are not kept by CAF).
struct BaspHeader {
  uint8_t operation = 0;
  uint8_t flags = 0;
  uint32_t payload_length = 0;
  uint64_t operation_data = 0;
  uint64_t source_actor = 0;
  uint64_t destination_actor = 0;
};

/// Handshakes, monitor and down messages carry node ids, a few strings and an error: small.
inline constexpr uint32_t kMaxBaspControlPayload = 64 * 1024;
/// Any other message: actor messages (the largest are full cluster snapshots and view lists,
/// a few hundred bytes per node, so this holds clusters of about 200,000 nodes).
inline constexpr uint32_t kMaxBaspMessagePayload = 64 * 1024 * 1024;

/// Why `header` is not one the protocol allows (or is larger than the bounds above); empty when
/// it is acceptable.
std::string_view basp_header_refusal(const BaspHeader& header);

/// True when CAF's header check is this guard's (the dynamic linker bound CAF's calls to it).
bool basp_guard_active();

/// How many headers the guard has refused in this process.
uint64_t basp_headers_refused();

}  // namespace unisched::runtime
