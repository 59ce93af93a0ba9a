// The wait between attempts to reach a peer that went away (the hub, the centre's gRPC port):
// short at first, doubling after each failure up to a ceiling, short again once through.
#pragma once

#include <algorithm>
#include <chrono>

namespace unisched::runtime {

class ReconnectBackoff {
 public:
  ReconnectBackoff() = default;
  ReconnectBackoff(std::chrono::milliseconds first, std::chrono::milliseconds longest)
      : first_(first), longest_(longest), current_(first) {}

  std::chrono::milliseconds current() const { return current_; }
  /// After a failed attempt: the next wait is twice as long, up to the ceiling.
  void failed() { current_ = std::min(current_ * 2, longest_); }
  /// After a successful attempt: the next trouble starts again from the first wait.
  void succeeded() { current_ = first_; }

 private:
  std::chrono::milliseconds first_{200};
  std::chrono::milliseconds longest_{5'000};
  std::chrono::milliseconds current_ = first_;
};

}  // namespace unisched::runtime
