// Raw TCP clients for tests that talk to a port as an attacker would: bytes in, no protocol.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <string>
#include <utility>

namespace unisched::testing {

/// A connected loopback socket, closed when it goes.
class RawConnection {
 public:
  explicit RawConnection(uint16_t port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~RawConnection() {
    if (fd_ >= 0) {
      ::close(fd_);
    }
  }
  RawConnection(RawConnection&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  RawConnection& operator=(RawConnection&& other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool connected() const { return fd_ >= 0; }
  /// Sends all of `bytes`; false when the peer closed or the connection failed.
  bool send(const std::string& bytes) {
    size_t sent = 0;
    while (fd_ >= 0 && sent < bytes.size()) {
      const ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) {
        return false;
      }
      sent += static_cast<size_t>(n);
    }
    return fd_ >= 0;
  }
  /// What the peer sends until it closes, or `patience` passes, or `enough` bytes came.
  std::string receive(std::chrono::milliseconds patience, size_t enough = SIZE_MAX) {
    std::string bytes;
    const auto deadline = std::chrono::steady_clock::now() + patience;
    while (fd_ >= 0 && bytes.size() < enough) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      pollfd ready{fd_, POLLIN, 0};
      if (left.count() <= 0 || ::poll(&ready, 1, static_cast<int>(left.count())) <= 0) {
        break;
      }
      char chunk[4096];
      const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
      if (n <= 0) {
        break;
      }
      bytes.append(chunk, static_cast<size_t>(n));
    }
    return bytes;
  }

 private:
  int fd_;
};

/// Appends `value` to `out` in network byte order, `bytes` bytes wide.
inline void put_big_endian(std::string& out, uint64_t value, int bytes) {
  for (int shift = (bytes - 1) * 8; shift >= 0; shift -= 8) {
    out.push_back(static_cast<char>((value >> shift) & 0xff));
  }
}

/// A BASP header as it goes on the wire: operation, two padding bytes, flags, payload length,
/// operation data, source and destination actor.
inline std::string basp_header_bytes(uint8_t operation, uint8_t flags, uint32_t payload_length,
                                     uint64_t operation_data, uint64_t source, uint64_t dest) {
  std::string out;
  put_big_endian(out, operation, 1);
  put_big_endian(out, 0, 2);
  put_big_endian(out, flags, 1);
  put_big_endian(out, payload_length, 4);
  put_big_endian(out, operation_data, 8);
  put_big_endian(out, source, 8);
  put_big_endian(out, dest, 8);
  return out;
}

/// Resident memory of process `pid` in bytes (VmRSS), 0 when it cannot be read.
inline uint64_t resident_bytes(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string key;
  while (status >> key) {
    if (key == "VmRSS:") {
      uint64_t kib = 0;
      status >> kib;
      return kib * 1024;
    }
    status.ignore(4096, '\n');
  }
  return 0;
}

}  // namespace unisched::testing
