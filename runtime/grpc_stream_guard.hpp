// What an update stream must pass before it may keep one of the synchronous gRPC server's
// threads: a token that is some cluster's (when tokens are checked), room under the streams
// allowed from its address and in all, and its first message within a deadline. The server's
// other threads stay free for unary calls (HealthCheck), so idle streams cannot starve the
// agents that heartbeat. Each refusal is logged with the peer.
#pragma once

#include <grpcpp/server_context.h>
#include <grpcpp/support/status.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>

namespace unisched::runtime {

struct GrpcStreamLimits {
  size_t per_peer = 64;  ///< update streams open at once from one address
  size_t total = 192;    ///< from everyone (below the server's threads: the rest answer calls)
  std::chrono::milliseconds first_message{10'000};
};

class GrpcStreamGuard {
 public:
  /// `tokens`: clusterID -> token, empty when none are checked.
  GrpcStreamGuard(GrpcStreamLimits limits, std::map<std::string, std::string> tokens);
  ~GrpcStreamGuard();
  GrpcStreamGuard(const GrpcStreamGuard&) = delete;
  GrpcStreamGuard& operator=(const GrpcStreamGuard&) = delete;

  /// A stream's place under the limits, given back when it goes.
  class Admission {
   public:
    Admission(GrpcStreamGuard* guard, std::string address, uint64_t watch)
        : guard_(guard), address_(std::move(address)), watch_(watch) {}
    Admission(Admission&& other) noexcept
        : guard_(std::exchange(other.guard_, nullptr)),
          address_(std::move(other.address_)),
          watch_(other.watch_),
          watching_(other.watching_) {}
    Admission& operator=(Admission&&) = delete;
    Admission(const Admission&) = delete;
    ~Admission();
    /// The stream sent its first message: its deadline no longer applies.
    void first_message_arrived();

   private:
    GrpcStreamGuard* guard_;
    std::string address_;
    uint64_t watch_;
    bool watching_ = true;
  };

  /// Admits the stream of `context` into `admission`; otherwise the status that refuses it:
  /// UNAUTHENTICATED (no token of any cluster), RESOURCE_EXHAUSTED (too many streams).
  grpc::Status admit(grpc::ServerContext* context, std::optional<Admission>& admission);

  /// The address part of a gRPC peer ("ipv4:127.0.0.1:5000" -> "ipv4:127.0.0.1").
  static std::string address_of(const std::string& peer);

 private:
  struct Watch {
    std::chrono::steady_clock::time_point deadline;
    grpc::ServerContext* context;
    std::string peer;
  };
  void release(const std::string& address, uint64_t watch);
  void unwatch(uint64_t watch);
  void cancel_late_streams();

  GrpcStreamLimits limits_;
  std::map<std::string, std::string> tokens_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::map<std::string, size_t> open_by_address_;
  size_t open_ = 0;
  std::map<uint64_t, Watch> watches_;  // streams that have not sent a message yet
  uint64_t next_watch_ = 1;
  bool stopping_ = false;
  std::thread watchdog_;
};

}  // namespace unisched::runtime
