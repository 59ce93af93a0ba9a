// The commits a scheduler awaits and when each falls overdue: one timer serves them all, instead
// of a CAF request timeout per commit (each woke CAF's clock thread, and each fired later as a
// message of its own: 8% of a busy scheduler's process in `perf`). Plain C++.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"

namespace unisched::actors {

class CommitDeadlines {
 public:
  using Clock = std::chrono::steady_clock;
  struct Overdue {
    uint64_t round = 0;
    std::string cluster;
  };

  explicit CommitDeadlines(std::chrono::milliseconds timeout) : timeout_(timeout) {}

  /// Awaits the answer to a commit of `round` sent to `cluster` at `now`; returns its ticket.
  uint64_t open(uint64_t round, std::string cluster, Clock::time_point now);
  /// An answer came: true when its commit was still awaited (not answered, not overdue), and
  /// only then does the answer count.
  bool close(uint64_t ticket) { return awaited_.erase(ticket) > 0; }
  /// The commits awaited past their deadline at `now`, oldest first; they are awaited no more.
  std::vector<Overdue> take_overdue(Clock::time_point now);
  /// When the oldest commit still awaited falls overdue; nullopt when none is awaited.
  std::optional<Clock::time_point> next_deadline();
  size_t awaited() const { return awaited_.size(); }

 private:
  struct Sent {
    uint64_t ticket = 0;
    uint64_t round = 0;
    std::string cluster;
    Clock::time_point deadline;
  };
  /// Drops answered commits from the front, so that `sent_` starts at the oldest one awaited
  /// (it holds every commit sent since: at most a timeout's worth).
  void drop_answered();

  std::chrono::milliseconds timeout_;
  uint64_t last_ticket_ = 0;
  std::deque<Sent> sent_;  // in the order sent, which is the order of their deadlines
  absl::flat_hash_set<uint64_t> awaited_;
};

}  // namespace unisched::actors
