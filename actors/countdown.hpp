// The one way a fan-out waits for its replies: a count of the replies still to come, shared by
// every reply's handler, that runs its continuation once, when the last one is in (answered or
// failed alike). Plain C++; actors call it from their own thread only.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <utility>

namespace unisched::actors {

class Countdown {
 public:
  /// Waits for `replies` replies, then runs `then`; with none to wait for, runs it at once.
  Countdown(size_t replies, std::function<void()> then)
      : shared_(std::make_shared<Shared>(Shared{replies, std::move(then)})) {
    if (replies == 0) {
      finish();
    }
  }

  /// One reply is in. Replies past the count change nothing.
  void operator()() const {
    if (shared_->left > 0 && --shared_->left == 0) {
      finish();
    }
  }

  size_t left() const { return shared_->left; }

 private:
  struct Shared {
    size_t left;
    std::function<void()> then;
  };
  void finish() const {
    auto then = std::move(shared_->then);
    shared_->then = nullptr;  // runs once, and what it holds goes with it
    if (then) {
      then();
    }
  }
  std::shared_ptr<Shared> shared_;
};

}  // namespace unisched::actors
