#include "runtime/restart_gate.hpp"

#include <iterator>
#include <utility>

namespace unisched::runtime {

void RestartGate::close(Work work, std::set<std::string> awaited, Clock::time_point deadline) {
  held_ = std::move(work);
  awaited_ = held_.empty() ? std::set<std::string>{} : std::move(awaited);
  deadline_ = deadline;
}

void RestartGate::hold(Work work) {
  held_.insert(held_.end(), std::make_move_iterator(work.begin()),
               std::make_move_iterator(work.end()));
}

RestartGate::Work RestartGate::cluster_synced(const std::string& cluster) {
  if (!closed()) {
    return {};
  }
  awaited_.erase(cluster);
  return awaited_.empty() ? open() : Work{};
}

RestartGate::Work RestartGate::tick(Clock::time_point now) {
  return closed() && now >= deadline_ ? open() : Work{};
}

RestartGate::Work RestartGate::open() {
  awaited_.clear();
  return std::exchange(held_, {});
}

}  // namespace unisched::runtime
