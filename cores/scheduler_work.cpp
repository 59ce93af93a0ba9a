#include "cores/scheduler_work.hpp"

namespace unisched::actors {

uint64_t SchedulerWork::take_replica_number() {
  if (free_replicas.empty()) {
    return next_replica++;
  }
  const uint64_t number = *free_replicas.begin();
  free_replicas.erase(free_replicas.begin());
  return number;
}

void SchedulerQueue::admit(std::unique_ptr<SchedulerWork> work) {
  work->arrival = arrivals_++;
  put_back(std::move(work));
}

void SchedulerQueue::put_back(std::unique_ptr<SchedulerWork> work) {
  const auto key = std::make_pair(-work->spec.priority, work->arrival);
  waiting_.emplace(key, std::move(work));
}

SchedulerWork* SchedulerQueue::head() const {
  return waiting_.empty() ? nullptr : waiting_.begin()->second.get();
}

std::unique_ptr<SchedulerWork> SchedulerQueue::take_head() {
  if (waiting_.empty()) {
    return nullptr;
  }
  std::unique_ptr<SchedulerWork> work = std::move(waiting_.begin()->second);
  waiting_.erase(waiting_.begin());
  return work;
}

}  // namespace unisched::actors
