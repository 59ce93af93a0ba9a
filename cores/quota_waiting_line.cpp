#include "cores/quota_waiting_line.hpp"

namespace unisched::actors {

void QuotaWaitingLine::add(const std::string& work_id, const std::string& queue,
                           ResourceAmounts demand, int64_t priority) {
  remove(work_id);
  WaitingWork& entry = by_id_[work_id];
  entry.id = work_id;
  entry.queue = queue;
  entry.demand = std::move(demand);
  entry.order = {-priority, arrivals_++};
  by_queue_[queue].insert({entry.order, work_id});
}

bool QuotaWaitingLine::remove(const std::string& work_id) {
  const auto found = by_id_.find(work_id);
  if (found == by_id_.end()) {
    return false;
  }
  const auto line = by_queue_.find(found->second.queue);
  line->second.erase({found->second.order, work_id});
  if (line->second.empty()) {
    by_queue_.erase(line);
  }
  by_id_.erase(found);
  return true;
}

void QuotaWaitingLine::mark_refused(const std::string& work_id, uint64_t revision) {
  by_id_.at(work_id).refused_at = revision;
}

std::vector<const WaitingWork*> QuotaWaitingLine::heads() const {
  std::vector<const WaitingWork*> out;
  out.reserve(by_queue_.size());
  for (const auto& [queue, line] : by_queue_) {
    out.push_back(&by_id_.at(line.begin()->second));
  }
  return out;
}

std::set<std::string> QuotaWaitingLine::queues() const {
  std::set<std::string> out;
  for (const auto& [queue, line] : by_queue_) {
    out.insert(queue);
  }
  return out;
}

QuotaPending QuotaWaitingLine::pending(const std::string& queue) const {
  QuotaPending out;
  const auto line = by_queue_.find(queue);
  if (line == by_queue_.end()) {
    return out;
  }
  for (const auto& [order, work_id] : line->second) {
    ++out.requests;
    add_to(out.demand, by_id_.at(work_id).demand);
  }
  return out;
}

}  // namespace unisched::actors
