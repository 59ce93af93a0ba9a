#include "runtime/grpc_stream_guard.hpp"

#include <spdlog/spdlog.h>

#include "runtime/grpc_clusters.hpp"
#include "runtime/tokens.hpp"

namespace unisched::runtime {

using grpc::Status;
using grpc::StatusCode;

/// The watchdog looks at least this often, so a stream opened while it sleeps is not missed
/// for long.
constexpr std::chrono::seconds kLongestWatchdogSleep{1};

GrpcStreamGuard::GrpcStreamGuard(GrpcStreamLimits limits, std::map<std::string, std::string> tokens)
    : limits_(limits), tokens_(std::move(tokens)), watchdog_([this] { cancel_late_streams(); }) {}

GrpcStreamGuard::~GrpcStreamGuard() {
  {
    std::lock_guard<std::mutex> guard(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  watchdog_.join();
}

std::string GrpcStreamGuard::address_of(const std::string& peer) {
  const size_t colon = peer.rfind(':');
  const size_t scheme = peer.find(':');
  return colon == std::string::npos || colon == scheme ? peer : peer.substr(0, colon);
}

Status GrpcStreamGuard::admit(grpc::ServerContext* context, std::optional<Admission>& admission) {
  const std::string peer = context->peer();
  if (!tokens_.empty()) {
    // The cluster is named in the first message; until then, the token must be some cluster's,
    // so that no stream holds a thread without a credential. Every token is compared.
    const std::string token = presented_token(context);
    bool known = false;
    for (const auto& [cluster, expected] : tokens_) {
      known = token_matches(expected, token) || known;
    }
    if (!known) {
      spdlog::warn("grpc: refused an update stream from {}: no cluster's token", peer);
      return Status(StatusCode::UNAUTHENTICATED,
                    std::string(token.empty() ? "authorization: Required value"
                                              : "the token presented is no cluster's") +
                        ": send \"authorization: Bearer TOKEN\" with the cluster's token");
    }
  }
  const std::string address = address_of(peer);
  std::lock_guard<std::mutex> guard(mutex_);
  size_t& from_address = open_by_address_[address];
  if (from_address >= limits_.per_peer || open_ >= limits_.total) {
    const bool per_peer = from_address >= limits_.per_peer;
    if (from_address == 0) {
      open_by_address_.erase(address);
    }
    spdlog::warn("grpc: refused an update stream from {}: {} streams open {}, the most allowed",
                 peer, per_peer ? from_address : open_, per_peer ? "from that address" : "in all");
    return Status(StatusCode::RESOURCE_EXHAUSTED,
                  std::string("too many update streams open ") +
                      (per_peer ? "from this address" : "at this hub") +
                      ": close one, or wait for one to end");
  }
  ++from_address;
  ++open_;
  const uint64_t watch = next_watch_++;
  watches_[watch] = Watch{std::chrono::steady_clock::now() + limits_.first_message, context, peer};
  wake_.notify_all();
  admission.emplace(this, address, watch);
  return Status::OK;
}

void GrpcStreamGuard::unwatch(uint64_t watch) {
  std::lock_guard<std::mutex> guard(mutex_);
  watches_.erase(watch);
}

void GrpcStreamGuard::release(const std::string& address, uint64_t watch) {
  std::lock_guard<std::mutex> guard(mutex_);
  watches_.erase(watch);  // before the call's context goes: the watchdog never touches it after
  --open_;
  if (const auto found = open_by_address_.find(address);
      found != open_by_address_.end() && --found->second == 0) {
    open_by_address_.erase(found);
  }
}

void GrpcStreamGuard::cancel_late_streams() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    const auto now = std::chrono::steady_clock::now();
    auto next = now + kLongestWatchdogSleep;
    for (auto watch = watches_.begin(); watch != watches_.end();) {
      if (watch->second.deadline > now) {
        next = std::min(next, watch->second.deadline);
        ++watch;
        continue;
      }
      spdlog::warn("grpc: closed an update stream from {}: no message within {} ms of opening it",
                   watch->second.peer, limits_.first_message.count());
      watch->second.context->TryCancel();
      watch = watches_.erase(watch);
    }
    wake_.wait_until(lock, next);
  }
}

GrpcStreamGuard::Admission::~Admission() {
  if (guard_ != nullptr) {
    guard_->release(address_, watch_);
  }
}

void GrpcStreamGuard::Admission::first_message_arrived() {
  if (watching_) {
    guard_->unwatch(watch_);
    watching_ = false;
  }
}

}  // namespace unisched::runtime
