#include "cores/commit_deadlines.hpp"

namespace unisched::actors {

uint64_t CommitDeadlines::open(uint64_t round, std::string cluster, Clock::time_point now) {
  drop_answered();
  const uint64_t ticket = ++last_ticket_;
  sent_.push_back({ticket, round, std::move(cluster), now + timeout_});
  awaited_.insert(ticket);
  return ticket;
}

std::vector<CommitDeadlines::Overdue> CommitDeadlines::take_overdue(Clock::time_point now) {
  std::vector<Overdue> overdue;
  while (!sent_.empty() && sent_.front().deadline <= now) {
    Sent& oldest = sent_.front();
    if (awaited_.erase(oldest.ticket) > 0) {
      overdue.push_back({oldest.round, std::move(oldest.cluster)});
    }
    sent_.pop_front();
  }
  return overdue;
}

std::optional<CommitDeadlines::Clock::time_point> CommitDeadlines::next_deadline() {
  drop_answered();
  if (sent_.empty()) {
    return std::nullopt;
  }
  return sent_.front().deadline;
}

void CommitDeadlines::drop_answered() {
  while (!sent_.empty() && awaited_.count(sent_.front().ticket) == 0) {
    sent_.pop_front();
  }
}

}  // namespace unisched::actors
